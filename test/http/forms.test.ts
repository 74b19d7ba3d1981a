/**
 * D20: sign-up forms. `/api/v1/forms` manages them (lists.read / lists.write); `/f/{uid}` is public:
 * the hosted page, and where every copy of the form posts (form-encoded or JSON, from any origin).
 * The server believes X-Forwarded-For from the test (TRUST_PROXY), so each test signs up from
 * client addresses of its own and D20's per-address limit is met only where a test means to.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readJson } from '../../src/domain/shared/json.ts';
import { expectError, expectRead, expectWritten } from '../helpers/responses.ts';
import { startTestServer, type ApiResponse } from '../helpers/server.ts';
import { startSmtpSink } from '../sending/smtp-sink.ts';

// Confirmation mails (D20) go to a real SMTP server.
const sink = await startSmtpSink();
const server = await startTestServer({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL: 'https://mail.example.com', SMTP_URL: sink.url });
afterAll(async () => {
  await server.close();
  await sink.close();
});

let key: string;
let accountId: number;
let listId: number;
let otherListId: number;

let clients = 0;
/** A client address no other request of this file uses. */
const newClient = () => `2001:db8::${(++clients).toString(16)}`;

/** A public list of the account (D20: forms sign up to public lists only), single opt-in unless asked. */
async function publicList(name: string, apiKey = key, optIn: 'single' | 'double' = 'single'): Promise<number> {
  const created = await server.request('POST', '/api/v1/lists', { key: apiKey, body: { name, is_public: true, opt_in: optIn } });
  expect(created.status, created.text).toBe(200);
  return created.body.data.id;
}
const setPublic = async (id: number, isPublic: boolean) => expect((await server.request('PUT', `/api/v1/lists/${id}`, { key, body: { is_public: isPublic } })).status).toBe(200);

const FIELDS = [
  { name: 'email', label: 'E-mail', required: true },
  { name: 'first_name', label: 'First name', required: false },
  { name: 'custom_fields.company', label: 'Company', required: false },
];

async function createForm(body: Record<string, unknown> = {}): Promise<any> {
  const res = await server.request('POST', '/api/v1/forms', { key, body: { name: 'Newsletter', list_ids: [listId], fields: FIELDS, ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const FORM_ENCODED = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

/** A browser's form post from its own address. */
function postForm(uid: string, fields: Record<string, string>, client = newClient()): Promise<ApiResponse> {
  return server.request('POST', `/f/${uid}`, { rawBody: new URLSearchParams(fields).toString(), headers: { ...FORM_ENCODED, 'x-forwarded-for': client } });
}

/** A script's JSON post from its own address. */
function postJson(uid: string, body: unknown, client = newClient()): Promise<ApiResponse> {
  return server.request('POST', `/f/${uid}`, { body, headers: { accept: 'application/json', 'x-forwarded-for': client } });
}

const contactRow = (email: string) => server.db.selectFrom('contacts').selectAll().where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();
/** The contact's memberships as the API shows them (D20: every one, with its status). */
const membershipsOf = async (email: string) => {
  const res = await server.request('GET', `/api/v1/contacts/${encodeURIComponent(email)}`, { key });
  return res.status === 404 ? [] : res.body.data.memberships;
};
/** D20: `GET /contacts/{email}/consents`, oldest first. */
const consentsOf = async (email: string) => {
  const res = await server.request('GET', `/api/v1/contacts/${encodeURIComponent(email)}/consents`, { key });
  return res.status === 404 ? [] : res.body.data.consents.map(({ at, ...consent }: { at: string }) => consent);
};
const listCount = async (id: number) => (await server.request('GET', `/api/v1/lists/${id}`, { key })).body.data.contact_count;

beforeAll(async () => {
  ({ key, accountId } = await server.createAccountWithKey());
  listId = await publicList('Newsletter');
  otherListId = await publicList('Offers');
});

describe('/api/v1/forms (D20)', () => {
  it('creates a form: its uid is unguessable, its embed code a plain <form> posting to PUBLIC_URL/f/{uid}', async () => {
    const res = await server.request('POST', '/api/v1/forms', {
      key,
      body: { name: '  Newsletter  ', list_ids: [listId, otherListId, listId], fields: [{ name: 'email', label: 'Your e-mail' }, { name: 'last_name', label: 'Surname', required: true }], success_message: 'Welcome!' },
    });
    const form = res.body.data;
    expectWritten(res, {
      id: expect.any(Number),
      uid: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      name: 'Newsletter',
      list_ids: [listId, otherListId],
      fields: [
        { name: 'email', label: 'Your e-mail', required: true },
        { name: 'last_name', label: 'Surname', required: true },
      ],
      success_message: 'Welcome!',
      redirect_url: null,
      button_text: null,
      button_color: null,
      consent_text: null,
      confirm_redirect_url: null,
      hosted_url: `https://mail.example.com/f/${form.uid}`,
      embed_html: expect.any(String),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      updated_at: form.created_at,
    });
    const html: string = form.embed_html;
    expect(html).toMatch(new RegExp(`^<form [^>]*method="post" action="https://mail\\.example\\.com/f/${form.uid}"`));
    expect(html).toMatch(/<label for="([^"]+)">Your e-mail<span[^>]*> \*<\/span><\/label>\s*<input id="\1" name="email" type="email"[^>]* required>/);
    expect(html).toMatch(/<label for="([^"]+)">Surname.*<\/label>\s*<input id="\1" name="last_name" type="text"[^>]* maxlength="255" required>/);
    // The honeypot: hidden from people, named `website`.
    expect(html).toMatch(/<p hidden><label>[^<]*<input type="text" name="website" tabindex="-1" autocomplete="off"><\/label><\/p>/);
    expect(html).not.toMatch(/<script|style=/i);
    expect(html).toMatch(/<button type="submit">Subscribe<\/button><\/p>\s*<\/form>$/);
  });

  it('reads a form; pages through forms oldest first (D6), past the last page an empty page', async () => {
    const { key: ownKey } = await server.createAccountWithKey();
    const ownList = await publicList('Own list', ownKey);
    const made = [];
    for (const name of ['A', 'B', 'C']) {
      const res = await server.request('POST', '/api/v1/forms', { key: ownKey, body: { name, list_ids: [ownList], fields: [{ name: 'email', label: 'E-mail' }] } });
      made.push(res.body.data);
    }
    expectRead(await server.request('GET', `/api/v1/forms/${made[1].id}`, { key: ownKey }), made[1]);
    expectRead(await server.request('GET', '/api/v1/forms?size=2', { key: ownKey }), { forms: made.slice(0, 2), page: 0, size: 2, totalElements: 3, totalPages: 2 });
    expectRead(await server.request('GET', '/api/v1/forms?page=1&size=2', { key: ownKey }), { forms: made.slice(2), page: 1, size: 2, totalElements: 3, totalPages: 2 });
    expectRead(await server.request('GET', '/api/v1/forms?page=5&size=2', { key: ownKey }), { forms: [], page: 5, size: 2, totalElements: 3, totalPages: 2 });
    expectError(await server.request('GET', '/api/v1/forms?size=101', { key: ownKey }), 400, 'INVALID_REQUEST', /size/);
  });

  it('updates: omitted fields stay, fields and list_ids replace, null clears, the uid and embed address stay', async () => {
    const form = await createForm({ success_message: 'Hi', redirect_url: 'https://example.com/thanks' });
    const renamed = await server.request('PUT', `/api/v1/forms/${form.id}`, { key, body: { name: 'Renamed' } });
    expectWritten(renamed, { ...form, name: 'Renamed', updated_at: expect.any(String) });

    const res = await server.request('PUT', `/api/v1/forms/${form.id}`, {
      key,
      body: { list_ids: [otherListId], fields: [{ name: 'custom_fields.plan', label: 'Plan' }, { name: 'email', label: 'Mail' }], success_message: null, redirect_url: '' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      uid: form.uid,
      hosted_url: form.hosted_url,
      name: 'Renamed',
      list_ids: [otherListId],
      fields: [
        { name: 'custom_fields.plan', label: 'Plan', required: false },
        { name: 'email', label: 'Mail', required: true },
      ],
      success_message: null,
      redirect_url: null,
    });
    expect(res.body.data.embed_html.indexOf('name="custom_fields.plan"')).toBeLessThan(res.body.data.embed_html.indexOf('name="email"'));
    expectRead(await server.request('GET', `/api/v1/forms/${form.id}`, { key }), res.body.data);
  });

  it('deletes: the form is gone from the API and its /f/{uid} answers 404', async () => {
    const form = await createForm();
    expectWritten(await server.request('DELETE', `/api/v1/forms/${form.id}`, { key }), { id: form.id });
    expectError(await server.request('GET', `/api/v1/forms/${form.id}`, { key }), 404, 'FORM_NOT_FOUND');
    expectError(await server.request('DELETE', `/api/v1/forms/${form.id}`, { key }), 404, 'FORM_NOT_FOUND');
    expect((await server.request('GET', `/f/${form.uid}`)).status).toBe(404);
    expect((await postJson(form.uid, { email: 'after-delete@example.com' })).status).toBe(404);
    expect(await contactRow('after-delete@example.com')).toBeUndefined();
  });

  it('404 FORM_NOT_FOUND for a missing id on every id route; 400 for an id that is not one (D2)', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expectError(await server.request(method, '/api/v1/forms/987654', { key, body: method === 'PUT' ? { name: 'x' } : undefined }), 404, 'FORM_NOT_FOUND');
      expectError(await server.request(method, '/api/v1/forms/01', { key, body: method === 'PUT' ? { name: 'x' } : undefined }), 400, 'INVALID_REQUEST');
    }
  });

  it('needs lists.read to read and lists.write to change; no key is 401', async () => {
    const form = await createForm();
    const reader = await server.createKey(accountId, ['lists.read']);
    expect((await server.request('GET', `/api/v1/forms/${form.id}`, { key: reader.key })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/forms', { key: reader.key })).status).toBe(200);
    expectError(await server.request('POST', '/api/v1/forms', { key: reader.key, body: { name: 'x', list_ids: [listId], fields: FIELDS } }), 403, 'PERMISSION_DENIED', /lists\.write/);
    expectError(await server.request('PUT', `/api/v1/forms/${form.id}`, { key: reader.key, body: { name: 'x' } }), 403, 'PERMISSION_DENIED');
    expectError(await server.request('DELETE', `/api/v1/forms/${form.id}`, { key: reader.key }), 403, 'PERMISSION_DENIED');
    const writer = await server.createKey(accountId, ['contacts.read']);
    expectError(await server.request('GET', '/api/v1/forms', { key: writer.key }), 403, 'PERMISSION_DENIED', /lists\.read/);
    expectError(await server.request('GET', '/api/v1/forms'), 401, 'UNAUTHORIZED');
  });

  describe('list_ids: public lists of the account only (400 naming list_ids)', () => {
    it('refuses a private list, a missing one and another account’s public one alike', async () => {
      const privateList = (await server.request('POST', '/api/v1/lists', { key, body: { name: 'Staff only', is_public: false } })).body.data.id;
      const other = await server.createAccountWithKey();
      const theirs = await publicList('Theirs', other.key);
      for (const ids of [[privateList], [987654], [theirs], [listId, privateList]]) {
        const refused = ids.filter((id) => id !== listId);
        expectError(await server.request('POST', '/api/v1/forms', { key, body: { name: 'x', list_ids: ids, fields: FIELDS } }), 400, 'INVALID_REQUEST', new RegExp(`^list_ids: ${refused.join(', ')} is not a public list`));
      }
      const form = await createForm();
      expectError(await server.request('PUT', `/api/v1/forms/${form.id}`, { key, body: { list_ids: [privateList] } }), 400, 'INVALID_REQUEST', /^list_ids:/);
      expect((await server.request('GET', `/api/v1/forms/${form.id}`, { key })).body.data.list_ids).toEqual([listId]);
      expect(await server.db.selectFrom('forms').select('id').where('name', '=', 'x').execute()).toEqual([]);
    });

    it('refuses none, 21 and ids that are not positive integers', async () => {
      expectError(await server.request('POST', '/api/v1/forms', { key, body: { name: 'x', list_ids: [], fields: FIELDS } }), 400, 'INVALID_REQUEST', /list_ids/);
      const many = Array.from({ length: 21 }, (_, i) => i + 1);
      expectError(await server.request('POST', '/api/v1/forms', { key, body: { name: 'x', list_ids: many, fields: FIELDS } }), 400, 'INVALID_REQUEST', /list_ids/);
      // 1e20: never reaches the database as a 500 (PostgreSQL's bigint cannot hold it).
      for (const bad of [[0], ['1'], [1.5], [1e20], 'x', null]) {
        expectError(await server.request('POST', '/api/v1/forms', { key, body: { name: 'x', list_ids: bad, fields: FIELDS } }), 400, 'INVALID_REQUEST', /list_ids/);
      }
    });
  });

  it.each([
    ['no fields', { fields: [] }, /^fields must hold 1-20/],
    ['no email', { fields: [{ name: 'first_name', label: 'Name' }] }, /^fields must include email$/],
    ['email not required', { fields: [{ name: 'email', label: 'E-mail', required: false }] }, /^fields\[0\]\.required/],
    ['a field twice', { fields: [...FIELDS, { name: 'first_name', label: 'Again' }] }, /^fields\[3\]\.name: first_name appears more than once/],
    ['an unknown field', { fields: [...FIELDS, { name: 'status', label: 'Status' }] }, /^fields\[3\]\.name must be email, first_name, last_name or custom_fields\.<key>/],
    ['a custom key that is not one (D11)', { fields: [...FIELDS, { name: 'custom_fields.my-key', label: 'x' }] }, /^fields\[3\]\.name/],
    ['a blank label', { fields: [{ name: 'email', label: ' ' }] }, /^fields\[0\]\.label must be 1-200/],
    ['a field without a label', { fields: [{ name: 'email' }] }, /label/],
    ['21 fields', { fields: [FIELDS[0], ...Array.from({ length: 20 }, (_, i) => ({ name: `custom_fields.k${i}`, label: 'k' }))] }, /^fields must hold 1-20/],
    ['a blank name', { name: '  ' }, /^name must be 1-255/],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, /^name must be 1-255/],
    ['a success message of 1001 characters', { success_message: 'm'.repeat(1001) }, /^success_message must be at most 1000/],
    ['a javascript: redirect', { redirect_url: 'javascript:alert(1)' }, /^redirect_url must be an http/],
    ['a relative redirect', { redirect_url: '/thanks' }, /^redirect_url must be an absolute/],
    ['a redirect with credentials', { redirect_url: 'https://u:p@example.com/' }, /^redirect_url must not carry/],
  ])('400 for %s, naming the field', async (_name, body, message) => {
    expectError(await server.request('POST', '/api/v1/forms', { key, body: { name: 'Form', list_ids: [listId], fields: FIELDS, ...body } }), 400, 'INVALID_REQUEST', message);
  });

  it('escapes every label and the name wherever they are shown', async () => {
    const evil = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
    const form = await createForm({ name: evil, fields: [{ name: 'email', label: evil }] });
    expect(form.embed_html).not.toContain('<script>');
    expect(form.embed_html).toContain('&#34;&#62;&#60;script&#62;');
    const page = await server.request('GET', `/f/${form.uid}`);
    expect(page.text).not.toMatch(/<script|<img/);
  });
});

describe('GET /f/{uid}: the hosted form (D20)', () => {
  it('a styled page readable on a phone, with the labels, no script, and the CSP of the public pages', async () => {
    const form = await createForm();
    const res = await server.request('GET', `/f/${form.uid}`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.text).toMatch(/@media \(min-width:/);
    expect(res.text).toContain(`<form class="sendwell-form" method="post" action="/f/${form.uid}"`);
    for (const label of ['E-mail', 'First name', 'Company']) expect(res.text).toMatch(new RegExp(`<label for="[^"]+">${label}`));
    expect(res.text).not.toMatch(/<script/i);
  });

  it('a form with a redirect lets its page post there too (form-action follows redirects)', async () => {
    const form = await createForm({ redirect_url: 'https://www.example.org/thanks?from=form' });
    const res = await server.request('GET', `/f/${form.uid}`);
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' https://www.example.org;");
  });

  it('404 for an unknown uid: a page for a browser, FORM_NOT_FOUND for JSON', async () => {
    const page = await server.request('GET', '/f/AAAAAAAAAAAAAAAAAAAAAA', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('does not exist');
    expectError(await server.request('GET', '/f/AAAAAAAAAAAAAAAAAAAAAA', { headers: { accept: 'application/json' } }), 404, 'FORM_NOT_FOUND');
    expect((await server.request('GET', `/f/${'x'.repeat(5000)}`)).status).toBe(400);
  });

  it('404 once none of its lists is public any more; back when one is', async () => {
    const list = await publicList('Soon private');
    const form = await createForm({ list_ids: [list] });
    // D26.1 refuses to make a list a form uses private (409 LIST_IN_USE, test/http/list-in-use.test.ts);
    // a list made private before that rule is the case left.
    expect((await server.request('PUT', `/api/v1/lists/${list}`, { key, body: { is_public: false } })).status).toBe(409);
    await server.db.updateTable('lists').set({ is_public: 0 }).where('id', '=', list).execute();
    expect((await server.request('GET', `/f/${form.uid}`)).status).toBe(404);
    expect((await postJson(form.uid, { email: 'private@example.com' })).status).toBe(404);
    expect(await contactRow('private@example.com')).toBeUndefined();
    await setPublic(list, true);
    expect((await server.request('GET', `/f/${form.uid}`)).status).toBe(200);
  });
});

describe('POST /f/{uid}: signing up (D20)', () => {
  it('a browser post: 200 with the success message; the new contact has the fields given, SUBSCRIBED on a single list, with a FORM consent record', async () => {
    const form = await createForm({ success_message: 'Thanks, <friend>!' });
    const client = newClient();
    const countBefore = await listCount(listId);
    const res = await server.request('POST', `/f/${form.uid}`, {
      rawBody: new URLSearchParams({ email: ' New.Person@Example.com ', first_name: 'Ada', 'custom_fields.company': 'Acme & Co', website: '' }).toString(),
      headers: { ...FORM_ENCODED, 'x-forwarded-for': client, 'user-agent': 'Mozilla/5.0 (Test Phone)' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Thanks, &#60;friend&#62;!');
    const row = await contactRow('new.person@example.com');
    expect(row).toMatchObject({ first_name: 'Ada', last_name: null, status: 'SUBSCRIBED' });
    expect(readJson(row!.custom_fields, {})).toEqual({ company: 'Acme & Co' });
    expect(await membershipsOf('new.person@example.com')).toEqual([{ list_id: listId, status: 'SUBSCRIBED' }]);
    expect(await listCount(listId)).toBe(countBefore + 1);
    expect(await consentsOf('new.person@example.com')).toEqual([{ source: 'FORM', form_id: form.id, list_ids: [listId], ip: client, user_agent: 'Mozilla/5.0 (Test Phone)', statement: null }]);
    expect(sink.to('new.person@example.com')).toEqual([]);
  });

  it('a double list: the membership waits UNCONFIRMED, out of contact_count, and a confirmation mail with its /c/ link arrives; the page says so', async () => {
    const weekly = await publicList('Weekly digest', key, 'double');
    const form = await createForm({ list_ids: [weekly] });
    const res = await postForm(form.uid, { email: 'double@example.com', first_name: 'Dee' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('check your inbox');
    expect(await contactRow('double@example.com')).toMatchObject({ first_name: 'Dee', status: 'SUBSCRIBED' });
    expect(await membershipsOf('double@example.com')).toEqual([{ list_id: weekly, status: 'UNCONFIRMED' }]);
    expect(await listCount(weekly)).toBe(0);
    await expect.poll(() => sink.to('double@example.com').length).toBe(1);
    const [mail] = sink.to('double@example.com');
    expect(mail.subject).toContain('Weekly digest');
    const link = /https:\/\/mail\.example\.com(\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(mail.text ?? '');
    expect(link, mail.text).not.toBeNull();
    expect(await consentsOf('double@example.com')).toEqual([{ source: 'FORM', form_id: form.id, list_ids: [weekly], ip: expect.any(String), user_agent: expect.any(String), statement: null }]);
    // The person confirms through the link: the membership counts from now on.
    expect((await server.request('POST', link![1])).status).toBe(200);
    expect(await membershipsOf('double@example.com')).toEqual([{ list_id: weekly, status: 'SUBSCRIBED' }]);
    expect(await listCount(weekly)).toBe(1);
    expect((await consentsOf('double@example.com')).map((c: { source: string }) => c.source)).toEqual(['FORM', 'CONFIRMATION']);
  });

  it('a form over a single and a double list: SUBSCRIBED on one, UNCONFIRMED on the other, one mail naming the double one', async () => {
    const single = await publicList('Announcements');
    const double = await publicList('Deep dives', key, 'double');
    const form = await createForm({ list_ids: [single, double] });
    expect((await postJson(form.uid, { email: 'mixed@example.com' })).body.message).toContain('check your inbox');
    expect(await membershipsOf('mixed@example.com')).toEqual([
      { list_id: single, status: 'SUBSCRIBED' },
      { list_id: double, status: 'UNCONFIRMED' },
    ]);
    await expect.poll(() => sink.to('mixed@example.com').length).toBe(1);
    expect(sink.to('mixed@example.com')[0].subject).toContain('Deep dives');
    expect(sink.to('mixed@example.com')[0].text).not.toContain('Announcements');
  });

  it('a JSON post with Accept JSON: the envelope, with the message and redirect_url', async () => {
    const form = await createForm({ redirect_url: 'https://example.com/welcome' });
    const res = await postJson(form.uid, { email: 'json@example.com', first_name: 'Jay' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, data: { redirect_url: 'https://example.com/welcome' }, message: 'Thank you for subscribing!' });
    expect(await contactRow('json@example.com')).toMatchObject({ first_name: 'Jay' });
  });

  it('JSON without an Accept is answered in JSON; a form post without one in HTML', async () => {
    const form = await createForm();
    const json = await server.request('POST', `/f/${form.uid}`, { body: { email: 'noaccept@example.com' }, headers: { 'x-forwarded-for': newClient() } });
    expect(json.body).toMatchObject({ success: true });
    const html = await server.request('POST', `/f/${form.uid}`, { rawBody: 'email=noaccept2%40example.com', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': newClient() } });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('a browser post to a form with a redirect: 303 there', async () => {
    const form = await createForm({ redirect_url: 'https://example.com/welcome?x=1' });
    const res = await server.app.inject({ method: 'POST', url: `/f/${form.uid}`, payload: 'email=redirected%40example.com', headers: { ...FORM_ENCODED, 'x-forwarded-for': newClient() } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('https://example.com/welcome?x=1');
    expect(await contactRow('redirected@example.com')).toBeDefined();
  });

  it('an existing contact keeps its fields, status and timestamps, and only gains the memberships', async () => {
    const created = await server.request('POST', '/api/v1/contacts', { key, body: { email: 'known@example.com', first_name: 'Kept', custom_fields: { company: 'Old' }, tags: ['t'] } });
    expect(created.status).toBe(200);
    await server.request('PUT', '/api/v1/contacts/known@example.com', { key, body: { status: 'UNSUBSCRIBED' } });
    const before = await contactRow('known@example.com');
    const form = await createForm({ list_ids: [listId, otherListId] });
    const res = await postForm(form.uid, { email: 'KNOWN@example.com', first_name: 'Changed', 'custom_fields.company': 'New' });
    expect(res.status, res.text).toBe(200);
    expect(await contactRow('known@example.com')).toEqual(before);
    expect(await membershipsOf('known@example.com')).toEqual([
      { list_id: listId, status: 'SUBSCRIBED' },
      { list_id: otherListId, status: 'SUBSCRIBED' },
    ]);
    expect((await consentsOf('known@example.com')).map((c: any) => [c.source, c.form_id, c.list_ids])).toEqual([['FORM', form.id, [listId, otherListId]]]);
    // The same sign-up again changes nothing and records nothing more.
    expect((await postForm(form.uid, { email: 'known@example.com' })).status).toBe(200);
    expect(await contactRow('known@example.com')).toEqual(before);
    expect(await consentsOf('known@example.com')).toHaveLength(1);
  });

  it('two sign-ups of one new address at once make one contact, both answered 200', async () => {
    const form = await createForm();
    const results = await Promise.all(Array.from({ length: 8 }, () => postJson(form.uid, { email: 'race@example.com', first_name: 'Race' })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(await server.db.selectFrom('contacts').select('id').where('account_id', '=', accountId).where('email', '=', 'race@example.com').execute()).toHaveLength(1);
    expect(await membershipsOf('race@example.com')).toEqual([{ list_id: listId, status: 'SUBSCRIBED' }]);
  });

  it('issue 29 item 4: a sign-up is one transaction: when it fails after its memberships, no contact is left and no mail went', async () => {
    const weekly = await publicList('All or nothing', key, 'double');
    const form = await createForm({ list_ids: [weekly] });
    const subscriptions = server.core.subscriptions;
    const subscribeIn = subscriptions.subscribeIn.bind(subscriptions);
    const failing = vi.spyOn(subscriptions, 'subscribeIn').mockImplementationOnce(async (trx, input) => {
      await subscribeIn(trx, input);
      throw new Error('the sign-up failed after its memberships');
    });
    try {
      expect((await postJson(form.uid, { email: 'all-or-nothing@example.com' })).status).toBe(500);
    } finally {
      failing.mockRestore();
    }
    expect(await contactRow('all-or-nothing@example.com')).toBeUndefined();
    expect(sink.to('all-or-nothing@example.com')).toEqual([]);
    // Asked again, the sign-up is made whole, with its one mail.
    expect((await postJson(form.uid, { email: 'all-or-nothing@example.com' })).status).toBe(200);
    expect(await membershipsOf('all-or-nothing@example.com')).toEqual([{ list_id: weekly, status: 'UNCONFIRMED' }]);
    await expect.poll(() => sink.to('all-or-nothing@example.com').length).toBe(1);
  });

  it('a filled honeypot: the very answer a person gets, and nothing stored', async () => {
    const form = await createForm();
    const person = await postJson(form.uid, { email: 'person@example.com' });
    const robot = await postJson(form.uid, { email: 'robot@example.com', website: 'https://spam.example' });
    expect(robot.status).toBe(200);
    expect(robot.text).toBe(person.text);
    const robotHtml = await postForm(form.uid, { email: 'robot2@example.com', website: 'x', 'custom_fields.anything': 'x' });
    const personHtml = await postForm(form.uid, { email: 'person2@example.com' });
    expect(robotHtml.status).toBe(200);
    expect(robotHtml.text).toBe(personHtml.text);
    expect(await contactRow('robot@example.com')).toBeUndefined();
    expect(await contactRow('robot2@example.com')).toBeUndefined();
  });

  it('a filled honeypot with the address of an existing contact adds no membership, no consent and sends no mail', async () => {
    const weekly = await publicList('Robot bait', key, 'double');
    await server.request('POST', '/api/v1/contacts', { key, body: { email: 'victim@example.com' } });
    const form = await createForm({ list_ids: [weekly] });
    expect((await postForm(form.uid, { email: 'victim@example.com', website: 'x' })).status).toBe(200);
    expect(await membershipsOf('victim@example.com')).toEqual([]);
    expect(await consentsOf('victim@example.com')).toEqual([]);
    // A real sign-up afterwards is mailed, so a robot's would have been by now.
    expect((await postForm(form.uid, { email: 'after-robot@example.com' })).status).toBe(200);
    await expect.poll(() => sink.to('after-robot@example.com').length).toBe(1);
    expect(sink.to('victim@example.com')).toEqual([]);
  });

  describe('refusals: 400 naming the fields, nothing stored', () => {
    it('JSON: the message names each field, and `fields` says what is wrong with each', async () => {
      const form = await createForm({ fields: [...FIELDS, { name: 'last_name', label: 'Surname', required: true }] });
      const res = await postJson(form.uid, { email: 'not-an-address', first_name: 'x'.repeat(256) });
      expectError({ ...res, body: { success: res.body.success, error: res.body.error } }, 400, 'INVALID_REQUEST', 'email is not a valid e-mail address; first_name must be at most 255 characters; last_name is required');
      expect(res.body.fields).toEqual({ email: 'is not a valid e-mail address', first_name: 'must be at most 255 characters', last_name: 'is required' });
    });

    it('HTML: the form again, each problem beside its field, the values kept (escaped)', async () => {
      const form = await createForm();
      const res = await postForm(form.uid, { email: 'broken@', first_name: '"><b>Ann</b>', 'custom_fields.company': 'Acme' });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.text).toMatch(/name="email"[^>]* value="broken@" aria-invalid="true" aria-describedby="([^"]+)"><span class="sendwell-error" id="\1">E-mail is not a valid e-mail address<\/span>/);
      expect(res.text).toContain('name="first_name" type="text" autocomplete="given-name" maxlength="255" value="&#34;&#62;&#60;b&#62;Ann&#60;/b&#62;">');
      expect(res.text).toContain('value="Acme"');
      expect(res.text).not.toContain('<b>Ann');
    });

    it('a custom field the form does not declare, or any other undeclared field, is 400: no submission writes one', async () => {
      const form = await createForm();
      for (const extra of [{ 'custom_fields.vip': 'true' }, { status: 'UNSUBSCRIBED' }, { last_name: 'Lee' }, { tags: 'x' }, { lead_score: '99' }]) {
        const res = await postJson(form.uid, { email: 'sneaky@example.com', ...extra });
        expectError({ ...res, body: { success: res.body.success, error: res.body.error } }, 400, 'INVALID_REQUEST', `${Object.keys(extra)[0]} is not a field of this form`);
      }
      const nested = await postJson(form.uid, { email: 'sneaky@example.com', custom_fields: { company: 'x' } });
      expect(nested.body.error.message).toBe('custom_fields is not a field of this form');
      expect(await contactRow('sneaky@example.com')).toBeUndefined();
    });

    it('too long, given twice, not text, a NUL: each named', async () => {
      const form = await createForm();
      const cases: [unknown, string][] = [
        [{ email: 'a@example.com', 'custom_fields.company': 'c'.repeat(1001) }, 'custom_fields.company must be at most 1000 characters'],
        [{ email: `${'a'.repeat(250)}@example.com` }, 'email must be at most 254 characters'],
        [{ email: 'a@example.com', first_name: ['a', 'b'] }, 'first_name must be a single value'],
        [{ email: 'a@example.com', first_name: { $ne: 1 } }, 'first_name must be text'],
        [{ email: 'a@example.com', first_name: 'a\u0000b' }, 'must not contain the NUL character'],
      ];
      for (const [body, message] of cases) {
        const res = await postJson(form.uid, body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body.error.message).toContain(message);
      }
      const twice = await server.request('POST', `/f/${form.uid}`, { rawBody: 'email=a%40example.com&first_name=a&first_name=b', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'x-forwarded-for': newClient() } });
      expect(twice.body.error.message).toBe('first_name must be a single value');
      const nul = await server.request('POST', `/f/${form.uid}`, { rawBody: 'email=a%40example.com&first_name=a%00b', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'x-forwarded-for': newClient() } });
      expect(nul.body.error.message).toBe('first_name must not contain the NUL character');
      expect(await contactRow('a@example.com')).toBeUndefined();
    });

    it('bodies that are not a form: 415 for other types, 400 for bad JSON or a JSON array, 413 over the limit', async () => {
      const form = await createForm();
      const headers = (type: string) => ({ 'content-type': type, accept: 'application/json', 'x-forwarded-for': newClient() });
      expectError(await server.request('POST', `/f/${form.uid}`, { rawBody: 'email=a@example.com', headers: headers('text/plain') }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectError(await server.request('POST', `/f/${form.uid}`, { rawBody: '--x\r\n', headers: headers('multipart/form-data; boundary=x') }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectError(await server.request('POST', `/f/${form.uid}`, { rawBody: '{"email":', headers: headers('application/json') }), 400, 'INVALID_REQUEST', /JSON/);
      expectError(await server.request('POST', `/f/${form.uid}`, { rawBody: '["a@example.com"]', headers: headers('application/json') }), 400, 'INVALID_REQUEST', /JSON object/);
      expectError(await server.request('POST', `/f/${form.uid}`, { rawBody: `email=${'a'.repeat(300 * 1024)}`, headers: headers('application/x-www-form-urlencoded') }), 413, 'PAYLOAD_TOO_LARGE');
      const deep = '{"email":' + '['.repeat(50_000) + ']'.repeat(50_000) + '}';
      expect((await server.request('POST', `/f/${form.uid}`, { rawBody: deep, headers: headers('application/json') })).status).toBe(400);
    });

    it('1000 hostile submissions from 1000 addresses: every one refused, nothing stored', async () => {
      const form = await createForm();
      const bodies = [
        { email: 'hostile@example.com', 'custom_fields.admin': 'true' },
        { email: 'hostile@example.com', status: 'SUBSCRIBED' },
        { email: 'hostile@example.com', first_name: 'x'.repeat(300) },
        { email: 'hostile@example.com\r\nBcc: victim@example.com' },
        { email: ['hostile@example.com'] },
      ];
      const results = [];
      for (let i = 0; i < 1000; i += 50) {
        results.push(...(await Promise.all(Array.from({ length: 50 }, (_, j) => postJson(form.uid, bodies[(i + j) % bodies.length]).then((r) => r.status)))));
      }
      expect(new Set(results)).toEqual(new Set([400]));
      expect(await contactRow('hostile@example.com')).toBeUndefined();
    });
  });

  it('404 for an unknown uid: a page for a browser, FORM_NOT_FOUND in JSON', async () => {
    const html = await postForm('AAAAAAAAAAAAAAAAAAAAAA', { email: 'a@example.com' });
    expect(html.status).toBe(404);
    expect(html.text).toContain('does not exist');
    expectError(await postJson('AAAAAAAAAAAAAAAAAAAAAA', { email: 'a@example.com' }), 404, 'FORM_NOT_FOUND');
  });

  describe('at most 10 submissions a minute per client address and form', () => {
    it('the 11th is 429 with Retry-After, honeypot and invalid ones counted; another form or address is not held', async () => {
      const form = await createForm();
      const other = await createForm();
      const client = newClient();
      for (let i = 0; i < 4; i++) expect((await postJson(form.uid, { email: `limit${i}@example.com` }, client)).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await postJson(form.uid, { email: 'bot@example.com', website: 'spam' }, client)).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await postJson(form.uid, { email: 'nope' }, client)).status).toBe(400);
      const json = await postJson(form.uid, { email: 'eleventh@example.com' }, client);
      expectError({ ...json, body: { success: json.body.success, error: json.body.error } }, 429, 'RATE_LIMIT_EXCEEDED');
      const retryAfter = Number(json.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(json.body.retryAfter).toBe(retryAfter);
      expect(json.headers.get('access-control-allow-origin')).toBe('*');
      const html = await postForm(form.uid, { email: 'twelfth@example.com' }, client);
      expect(html.status).toBe(429);
      expect(html.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(html.text).toContain('Please try again in');
      expect(await contactRow('eleventh@example.com')).toBeUndefined();
      expect(await contactRow('twelfth@example.com')).toBeUndefined();
      // The hosted page itself is not a submission.
      expect((await server.request('GET', `/f/${form.uid}`, { headers: { 'x-forwarded-for': client } })).status).toBe(200);
      expect((await postJson(other.uid, { email: 'other-form@example.com' }, client)).status).toBe(200);
      expect((await postJson(form.uid, { email: 'other-address@example.com' })).status).toBe(200);
    });
  });

  describe('CORS: a script on any origin may post (D20)', () => {
    it('answers the preflight for a JSON post from any origin, without credentials', async () => {
      const form = await createForm();
      const res = await fetch(`${server.url}/f/${form.uid}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example.net', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('the JSON post from another origin is answered with Access-Control-Allow-Origin: *, its refusals too', async () => {
      const form = await createForm();
      const ok = await server.request('POST', `/f/${form.uid}`, { body: { email: 'cors@example.com' }, headers: { origin: 'https://shop.example.net', accept: 'application/json', 'x-forwarded-for': newClient() } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe('*');
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
      const refused = await server.request('POST', `/f/${form.uid}`, { body: { email: 'x' }, headers: { origin: 'https://shop.example.net', 'x-forwarded-for': newClient() } });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');
      expect(await contactRow('cors@example.com')).toBeDefined();
    });
  });
});
