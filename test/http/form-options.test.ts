/**
 * Issue 34 item 12: a form's button words and colour, its consent checkbox (the words ticked are
 * kept in the consent record, D20), the page a person goes to once they confirm by mail, and the
 * thank-you page's link back to where the visitor came from (a link, never a redirect).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/responses.ts';
import { startTestServer } from '../helpers/server.ts';
import { startSmtpSink } from '../sending/smtp-sink.ts';

const sink = await startSmtpSink();
const server = await startTestServer({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL: 'https://mail.example.com', SMTP_URL: sink.url });
afterAll(async () => {
  await server.close();
  await sink.close();
});

let key: string;
let listId: number;
let clients = 0;
const newClient = () => `2001:db8::34:${(++clients).toString(16)}`;
const FORM_ENCODED = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,*/*;q=0.8' };

async function publicList(name: string, optIn: 'single' | 'double' = 'single', apiKey = key): Promise<number> {
  const res = await server.request('POST', '/api/v1/lists', { key: apiKey, body: { name, is_public: true, opt_in: optIn } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.id;
}

async function createForm(body: Record<string, unknown> = {}, apiKey = key): Promise<any> {
  const res = await server.request('POST', '/api/v1/forms', { key: apiKey, body: { name: 'News', list_ids: [listId], fields: [{ name: 'email', label: 'E-mail' }], ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** A browser's form post, answered without following a redirect. */
const post = (uid: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  server.app.inject({ method: 'POST', url: `/f/${uid}`, payload: new URLSearchParams(fields).toString(), headers: { ...FORM_ENCODED, 'x-forwarded-for': newClient(), ...headers } });

const consentsOf = async (email: string) => (await server.request('GET', `/api/v1/contacts/${encodeURIComponent(email)}/consents`, { key })).body.data.consents;

beforeAll(async () => {
  ({ key } = await server.createAccountWithKey());
  listId = await publicList('Readers');
});

describe('the options, as the API takes them', () => {
  it('stores and answers them; blank is none; colours lower-cased; the words on one line', async () => {
    const form = await createForm({ button_text: ' Join\n the club ', button_color: '#0B7285', consent_text: 'I agree to receive the newsletter.', confirm_redirect_url: 'https://shop.example/welcome#x' });
    expect(form).toMatchObject({ button_text: 'Join the club', button_color: '#0b7285', consent_text: 'I agree to receive the newsletter.', confirm_redirect_url: 'https://shop.example/welcome' });
    const res = await server.request('PUT', `/api/v1/forms/${form.id}`, { key, body: { button_text: '', button_color: null, consent_text: '  ' } });
    expect(res.status, res.text).toBe(200);
    // Only the options given change.
    expect(res.body.data).toMatchObject({ button_text: null, button_color: null, consent_text: null, confirm_redirect_url: 'https://shop.example/welcome' });
  });

  it.each([
    [{ button_color: 'red' }, /^button_color must be a hex colour/],
    [{ button_color: '#0b7285;background:url(https://evil.example/)' }, /^button_color must be a hex colour/],
    [{ button_text: 'x'.repeat(61) }, /^button_text must be at most 60 characters/],
    [{ consent_text: 'x'.repeat(501) }, /^consent_text must be at most 500 characters/],
    [{ consent_text: 'I agree\u0000' }, /consent_text must not contain the NUL character/],
    [{ confirm_redirect_url: 'javascript:alert(1)' }, /^confirm_redirect_url must be an http/],
    [{ confirm_redirect_url: '/welcome' }, /^confirm_redirect_url must be an absolute/],
    [{ confirm_redirect_url: 'https://user:pw@shop.example/' }, /^confirm_redirect_url must not carry/],
  ])('refuses %o on create and on update (400 naming it)', async (body, message) => {
    expectError(await server.request('POST', '/api/v1/forms', { key, body: { name: 'Bad', list_ids: [listId], fields: [{ name: 'email', label: 'E-mail' }], ...body } }), 400, 'INVALID_REQUEST', message);
    const form = await createForm();
    expectError(await server.request('PUT', `/api/v1/forms/${form.id}`, { key, body }), 400, 'INVALID_REQUEST', message);
  });

  it("another account's form is 404, and stays as it was", async () => {
    const form = await createForm({ button_text: 'Mine' });
    const other = await server.createAccountWithKey();
    expectError(await server.request('PUT', `/api/v1/forms/${form.id}`, { key: other.key, body: { button_text: 'Theirs', confirm_redirect_url: 'https://evil.example/' } }), 404, 'FORM_NOT_FOUND');
    expect((await server.request('GET', `/api/v1/forms/${form.id}`, { key })).body.data).toMatchObject({ button_text: 'Mine', confirm_redirect_url: null });
  });
});

describe('the hosted page and the embed code', () => {
  it('both show the button words and colour and the consent words, every one escaped', async () => {
    const form = await createForm({ name: 'A <i>form</i>', button_text: 'Go <script>alert(1)</script>', button_color: '#ffd43b', consent_text: 'I agree & accept <a href="https://evil.example">terms</a>"' });
    const hosted = await server.request('GET', `/f/${form.uid}`);
    for (const html of [hosted.text, form.embed_html]) {
      expect(html).toContain('<button type="submit" style="background:#ffd43b;border-color:#ffd43b;color:#000000">Go &#60;script&#62;alert(1)&#60;/script&#62;</button>');
      expect(html).toContain('<input id="sendwell-');
      expect(html).toMatch(/type="checkbox" name="consent" value="yes" required>/);
      expect(html).toContain('I agree &#38; accept &#60;a href=&#34;https://evil.example&#34;&#62;terms&#60;/a&#62;&#34;');
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<a href="https://evil.example"');
    }
    // Without options: the words and look of before, and no checkbox.
    const plain = await createForm();
    expect(plain.embed_html).toContain('<button type="submit">Subscribe</button>');
    expect(plain.embed_html).not.toContain('name="consent"');
  });
});

describe('the consent checkbox', () => {
  it('must be ticked; the record keeps the words as shown then, even after the form changes them', async () => {
    const form = await createForm({ consent_text: 'Yes, send me the monthly news.' });
    const refused = await post(form.uid, { email: 'unticked@example.com' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Please tick the box');
    expect((await server.request('GET', '/api/v1/contacts/unticked@example.com', { key })).status).toBe(404);
    const json = await server.request('POST', `/f/${form.uid}`, { body: { email: 'unticked@example.com', consent: false }, headers: { 'x-forwarded-for': newClient() } });
    expect(json.status).toBe(400);
    expect(json.body.fields).toEqual({ consent: 'must be ticked to sign up' });

    expect((await post(form.uid, { email: 'ticked@example.com', consent: 'yes' })).statusCode).toBe(200);
    await server.request('PUT', `/api/v1/forms/${form.id}`, { key, body: { consent_text: 'New words.' } });
    expect(await consentsOf('ticked@example.com')).toEqual([expect.objectContaining({ source: 'FORM', form_id: form.id, list_ids: [listId], statement: 'Yes, send me the monthly news.' })]);
    // D21: the person's own export carries it too.
    const exported = await server.request('GET', '/api/v1/contacts/ticked@example.com/export', { key });
    expect(exported.body.data.consents[0].statement).toBe('Yes, send me the monthly news.');
  });

  it('a form without consent words takes no `consent` field', async () => {
    const form = await createForm();
    const res = await server.request('POST', `/f/${form.uid}`, { body: { email: 'stray@example.com', consent: 'yes' }, headers: { 'x-forwarded-for': newClient() } });
    expect(res.status).toBe(400);
    expect(res.body.fields).toEqual({ consent: 'is not a field of this form' });
  });
});

describe('after confirming by mail', () => {
  async function signUpAndGetLink(form: any, email: string): Promise<string> {
    expect((await post(form.uid, { email })).statusCode).toBe(200);
    await expect.poll(() => sink.to(email).length).toBe(1);
    return /https:\/\/mail\.example\.com(\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(sink.to(email)[0].text ?? '')![1];
  }

  it("the person is sent (303) to the form's page; the question page's policy lets the button lead there; a second POST shows the page", async () => {
    const double = await publicList('Deep dives', 'double');
    const form = await createForm({ list_ids: [double], confirm_redirect_url: 'https://shop.example/welcome?from=confirm' });
    const link = await signUpAndGetLink(form, 'confirmer@example.com');

    const question = await server.app.inject({ method: 'GET', url: link });
    expect(question.statusCode).toBe(200);
    expect(question.headers['content-security-policy']).toContain("form-action 'self' https://shop.example;");

    const confirmed = await server.app.inject({ method: 'POST', url: link });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe('https://shop.example/welcome?from=confirm');
    expect((await server.request('GET', '/api/v1/contacts/confirmer@example.com', { key })).body.data.memberships).toEqual([{ list_id: double, status: 'SUBSCRIBED' }]);
    const again = await server.app.inject({ method: 'POST', url: link });
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('Nothing waits for confirmation');
  });

  it('a form without one, or deleted since, shows the confirmation page as before', async () => {
    const double = await publicList('Long reads', 'double');
    const form = await createForm({ list_ids: [double], confirm_redirect_url: 'https://shop.example/welcome' });
    const link = await signUpAndGetLink(form, 'deleted-form@example.com');
    expect((await server.request('DELETE', `/api/v1/forms/${form.id}`, { key })).status).toBe(200);
    const confirmed = await server.app.inject({ method: 'POST', url: link });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain('your subscription is confirmed');
  });
});

describe("the thank-you page's way back", () => {
  const backLink = (html: string) => /<a href="([^"]*)" rel="noopener noreferrer nofollow">([^<]*)<\/a>/.exec(html);

  it('links to the `return_to` the embedding page gave, named by its host, and never redirects there', async () => {
    const form = await createForm();
    const res = await post(form.uid, { email: 'back@example.com', return_to: 'https://shop.example/blog/post?id=7&x="y"' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(backLink(res.body)?.slice(1)).toEqual(['https://shop.example/blog/post?id=7&#38;x=%22y%22', '← Back to shop.example']);
    const contact = (await server.request('GET', '/api/v1/contacts/back@example.com', { key })).body.data;
    expect(contact.custom_fields).toEqual({});
  });

  it('else the Referer; a return_to or Referer that is not http(s) gives no link, and the sign-up still counts', async () => {
    const form = await createForm();
    const fromReferer = await post(form.uid, { email: 'referred@example.com' }, { referer: 'https://blog.example/article' });
    expect(backLink(fromReferer.body)?.[1]).toBe('https://blog.example/article');
    for (const [i, bad] of ['javascript:alert(document.cookie)', 'data:text/html,<script>x</script>', '//evil.example/', 'https://u:p@evil.example/'].entries()) {
      const res = await post(form.uid, { email: `bad${i}@example.com`, return_to: bad }, { referer: 'javascript:alert(2)' });
      expect(res.statusCode).toBe(200);
      expect(backLink(res.body)).toBeNull();
      expect(res.body).not.toContain('javascript:');
      expect((await server.request('GET', `/api/v1/contacts/bad${i}@example.com`, { key })).status).toBe(200);
    }
  });

  it('the hosted page carries `return_to` (its query, else the Referer) through the post, and through a refusal', async () => {
    const form = await createForm({ fields: [{ name: 'email', label: 'E-mail' }, { name: 'first_name', label: 'First name', required: true }] });
    const page = await server.request('GET', `/f/${form.uid}?return_to=${encodeURIComponent('https://shop.example/cart')}`);
    expect(page.text).toContain('<input type="hidden" name="return_to" value="https://shop.example/cart">');
    const viaReferer = await server.request('GET', `/f/${form.uid}`, { headers: { referer: 'https://news.example/today' } });
    expect(viaReferer.text).toContain('name="return_to" value="https://news.example/today"');
    // Its own page as the Referer is no way back.
    const self = await server.app.inject({ method: 'POST', url: `/f/${form.uid}`, payload: 'email=self%40example.com&first_name=S', headers: { ...FORM_ENCODED, host: 'localhost', referer: `http://localhost/f/${form.uid}`, 'x-forwarded-for': newClient() } });
    expect(backLink(self.body)).toBeNull();

    const refused = await post(form.uid, { email: 'carry@example.com', return_to: 'https://shop.example/cart' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<input type="hidden" name="return_to" value="https://shop.example/cart">');
  });
});
