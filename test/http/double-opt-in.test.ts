import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeAutomation, runsOf } from '../automations/helpers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, onServer, PUBLIC_URL, recipientRows, sendable, tamperings, tenant, type Tenant } from '../sending/send-helpers.ts';

// D20: double opt-in. A membership asked for with double opt-in on a `double` list waits
// UNCONFIRMED (in no audience, not in contact_count) until the person confirms through the
// signed `/c/{token}` link of the one confirmation mail; the API without the flag vouches
// (SUBSCRIBED). Every subscription and confirmation leaves a consent record.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('doi');

const listRow = (id: number) => server.db.selectFrom('lists').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const count = async (id: number) => (await listRow(id)).contact_count;
const memberships = (contactId: number) => server.db.selectFrom('list_members').select(['list_id', 'status']).where('contact_id', '=', contactId).orderBy('list_id').execute();
const consentsOf = (email: string) => t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}/consents`);

/** The HTML part's text as a browser reads it (the mail escapes `/` as `&#x2F;`). */
const decodeEntities = (html: string) => html.replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16))).replace(/&amp;/g, '&');

/** The confirmation link of a mail, checked to be the same in both parts. */
function confirmUrlIn(mail: ReceivedMessage): string {
  const m = new RegExp(`${PUBLIC_URL.replace(/[.]/g, '\\.')}/c/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+`).exec(mail.text ?? '');
  expect(m, mail.text).not.toBeNull();
  expect(decodeEntities(mail.html as string)).toContain(`<a href="${m![0]}"`);
  return m![0];
}

async function mailTo(email: string): Promise<ReceivedMessage> {
  const deadline = Date.now() + 10_000;
  while (sink.to(email).length === 0) {
    if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const mails = sink.to(email);
  expect(mails).toHaveLength(1);
  return mails[0];
}

async function createList(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await t.call('POST', '/api/v1/lists', body);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}
const doubleList = async (name: string, extra: Record<string, unknown> = {}) => (await createList({ name, opt_in: 'double', ...extra })).id as number;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('D20 lists: opt_in, is_public and the confirmation mail text', () => {
  it('default to single, private and the default mail; are set on create and update and shown on get', async () => {
    const plain = await createList({ name: 'Plain' });
    expect(plain).toMatchObject({ opt_in: 'single', is_public: false, confirmation_subject: null, confirmation_text: null });
    const own = await createList({ name: 'Own', opt_in: 'double', is_public: true, confirmation_subject: '  Please confirm  ', confirmation_text: 'Hi!\r\nClick {{confirm_url}} now.' });
    expect(own).toMatchObject({ opt_in: 'double', is_public: true, confirmation_subject: 'Please confirm', confirmation_text: 'Hi!\nClick {{confirm_url}} now.' });
    const updated = await t.call('PUT', `/api/v1/lists/${plain.id}`, { opt_in: 'double', is_public: true });
    expect(updated.body.data).toMatchObject({ opt_in: 'double', is_public: true, name: 'Plain' });
    // null or blank: back to the default
    await t.call('PUT', `/api/v1/lists/${own.id}`, { confirmation_subject: '', confirmation_text: null });
    expect((await t.call('GET', `/api/v1/lists/${own.id}`)).body.data).toMatchObject({ confirmation_subject: null, confirmation_text: null, opt_in: 'double' });
  });

  it.each([
    [{ opt_in: 'triple' }, 'opt_in'],
    [{ opt_in: null }, 'opt_in'],
    [{ is_public: 'yes' }, 'is_public'],
    [{ confirmation_subject: 'two\nlines' }, 'confirmation_subject'],
    [{ confirmation_subject: 'x'.repeat(201) }, 'confirmation_subject'],
    [{ confirmation_subject: 42 }, 'confirmation_subject'],
    [{ confirmation_text: 'no link here' }, 'confirmation_text'],
    [{ confirmation_text: '{{ confirm_url }}' + 'x'.repeat(5000) }, 'confirmation_text'],
    [{ confirmation_text: { nested: ['{{ confirm_url }}'] } }, 'confirmation_text'],
  ])('400 naming the field for %j, nothing stored', async (body, field) => {
    const name = `Bad ${field} ${Math.random()}`;
    const res = await t.call('POST', '/api/v1/lists', { name, ...body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toContain(field);
    const existing = await createList({ name: `${name} ok` });
    const put = await t.call('PUT', `/api/v1/lists/${existing.id}`, body);
    expect(put.status, put.text).toBe(400);
    expect(put.body.error.message).toContain(field);
    expect(await listRow(existing.id)).toMatchObject({ opt_in: 'single', is_public: 0, confirmation_subject: null, confirmation_text: null });
  });
});

describe('D20 double opt-in through the contacts API', () => {
  it('UNCONFIRMED on a double list, one mail, GET /c/ changes nothing, POST confirms; consents oldest first', async () => {
    const list = await doubleList('Weekly <News>');
    const email = at('new');
    const contact = await t.contact({ email, list_id: list, double_opt_in: true });
    expect(contact).toMatchObject({ status: 'SUBSCRIBED', list_ids: [], memberships: [{ list_id: list, status: 'UNCONFIRMED' }] });
    expect(await count(list)).toBe(0);

    const mail = await mailTo(email);
    expect(mail.subject).toBe('Please confirm your subscription to Weekly <News>');
    expect(mail.from?.text).toContain(`no-reply@mail.example.test`);
    // The list's name is escaped in the HTML part.
    expect(mail.html).toContain('Weekly &lt;News&gt;');
    expect(mail.html).not.toContain('<News>');
    const url = confirmUrlIn(mail);

    // A link scanner opening the link changes nothing.
    for (const method of ['GET', 'HEAD']) {
      const page = await hit(onServer(server, url), { method, headers: { 'user-agent': 'Scanner' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      if (method === 'GET') {
        expect(page.text).toContain('Weekly &#60;News&#62;');
        expect(page.text).toContain('<form method="post"');
        expect(page.text).toContain('name="viewport"');
      }
    }
    expect(await memberships(contact.id)).toEqual([{ list_id: list, status: 'UNCONFIRMED' }]);
    expect(await count(list)).toBe(0);

    const thanks = await hit(onServer(server, url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Phone browser' }, body: '' });
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('your subscription is confirmed');
    expect(await memberships(contact.id)).toEqual([{ list_id: list, status: 'SUBSCRIBED' }]);
    expect(await count(list)).toBe(1);
    expect((await t.getContact(email)).list_ids).toEqual([list]);

    // Idempotent: a second POST finds nothing waiting and records nothing.
    const again = await hit(onServer(server, url), { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(again.status).toBe(200);
    expect(again.text).toContain('Nothing waits for confirmation');
    expect(await count(list)).toBe(1);

    const consents = await consentsOf(email);
    expect(consents.status).toBe(200);
    expect(consents.body).toEqual({
      success: true,
      data: {
        consents: [
          { source: 'API', form_id: null, list_ids: [list], ip: '127.0.0.1', user_agent: expect.any(String), statement: null, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/) },
          { source: 'CONFIRMATION', form_id: null, list_ids: [list], ip: '127.0.0.1', user_agent: 'Phone browser', statement: null, at: expect.any(String) },
        ],
      },
    });
  });

  it('without double_opt_in, or on a single list, the API vouches: SUBSCRIBED, no mail', async () => {
    const dbl = await doubleList('Vouched');
    const single = (await createList({ name: 'Single' })).id;
    const a = at('vouched');
    const b = at('single');
    expect((await t.contact({ email: a, list_id: dbl })).memberships).toEqual([{ list_id: dbl, status: 'SUBSCRIBED' }]);
    expect((await t.contact({ email: b, list_id: single, double_opt_in: true })).memberships).toEqual([{ list_id: single, status: 'SUBSCRIBED' }]);
    expect(await count(dbl)).toBe(1);
    expect(await count(single)).toBe(1);
    // A mail to a third address proves the transport ran meanwhile; none went to these two.
    const c = at('probe');
    await t.contact({ email: c, list_id: dbl, double_opt_in: true });
    await mailTo(c);
    expect(sink.to(a)).toEqual([]);
    expect(sink.to(b)).toEqual([]);
    expect((await consentsOf(a)).body.data.consents.map((x: { source: string }) => x.source)).toEqual(['API']);
  });

  it('contact update with double_opt_in asks too; a SUBSCRIBED membership is never downgraded', async () => {
    const list = await doubleList('Update');
    const email = at('upd');
    await t.contact({ email });
    const updated = await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(email)}`, { list_id: list, double_opt_in: true });
    expect(updated.body.data.memberships).toEqual([{ list_id: list, status: 'UNCONFIRMED' }]);
    await mailTo(email);
    const member = at('member');
    await t.contact({ email: member, list_id: list });
    const again = await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(member)}`, { list_id: list, double_opt_in: true });
    expect(again.body.data.memberships).toEqual([{ list_id: list, status: 'SUBSCRIBED' }]);
    expect(await count(list)).toBe(1);
  });

  // Issue 28 M2: a list's own words go only from its verified domain (test/tenant-isolation/m2-confirmation-mail.test.ts);
  // without a sender the fixed mail goes, with the link.
  it("the list's own subject and text without a sender of its own: the fixed mail, with the link", async () => {
    const list = await doubleList('Custom', { confirmation_subject: 'Are you in? <b>', confirmation_text: 'Hello & welcome.\n\nTap here: {{ confirm_url }}\n\nBye {{ confirm_url }}' });
    const email = at('custom');
    await t.contact({ email, list_id: list, double_opt_in: true });
    const mail = await mailTo(email);
    expect(mail.subject).toBe('Please confirm your subscription to Custom');
    const url = confirmUrlIn(mail);
    expect(mail.text).not.toContain('Hello & welcome.');
    // The written-out link and the confirm button (issue 30 item 10), both the one link.
    expect(decodeEntities(mail.html as string).split(`<a href="${url}"`)).toHaveLength(3);
  });
});

describe('D20 POST /lists/{id}/contacts with double_opt_in', () => {
  it('each contact waits and is mailed once; SUBSCRIBED members stay; asking again resends to those still waiting', async () => {
    const list = await doubleList('Bulk');
    const waiting = [at('b1'), at('b2'), at('b3')];
    const member = at('bm');
    for (const email of [...waiting, member]) await t.contact({ email });
    await t.addToList(list, [member]);
    const res = await t.call('POST', `/api/v1/lists/${list}/contacts`, { emails: [...waiting, member, at('ghost')], double_opt_in: true });
    expect(res.body.data).toEqual({ added: 3, already_members: 1, not_found: [at('ghost')] });
    for (const email of waiting) await mailTo(email);
    expect(sink.to(member)).toEqual([]);
    expect(await count(list)).toBe(1);
    const page = await t.call('GET', `/api/v1/lists/${list}/contacts?size=100`);
    expect(page.body.data.contacts.map((c: Record<string, unknown>) => [c.email, c.membership_status])).toEqual([...waiting.map((e) => [e, 'UNCONFIRMED']), [member, 'SUBSCRIBED']]);
    const unconfirmed = await t.call('GET', `/api/v1/lists/${list}/contacts?membership_status=UNCONFIRMED`);
    expect(unconfirmed.body.data.totalElements).toBe(3);
    expect((await t.call('GET', `/api/v1/lists/${list}/contacts?membership_status=MAYBE`)).status).toBe(400);

    // Asked again: no change, but the mail goes again (the first may be lost).
    const again = await t.call('POST', `/api/v1/lists/${list}/contacts`, { emails: [waiting[0]], double_opt_in: true });
    expect(again.body.data).toEqual({ added: 0, already_members: 1, not_found: [] });
    const deadline = Date.now() + 10_000;
    while (sink.to(waiting[0]).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(sink.to(waiting[0])).toHaveLength(2);
    // Without the flag the caller vouches for the waiting one.
    expect((await t.addToList(list, [waiting[1]])).added).toBe(1);
    expect(await count(list)).toBe(2);
  });
});

describe('D20 UNCONFIRMED members receive nothing and count nowhere', () => {
  it('not in a campaign audience, the list filter, segments or contact_count; LIST_JOINED fires only on confirmation', async () => {
    const list = await doubleList('Audience');
    const flow = await activeAutomation(t, { trigger: { type: 'LIST_JOINED', list_id: list }, steps: [{ type: 'ADD_TAG', tag: 'joined' }] });
    const member = at('aud-member');
    const waiting = at('aud-waiting');
    await t.contact({ email: member, list_id: list });
    await t.contact({ email: waiting, list_id: list, double_opt_in: true });
    expect((await runsOf(t, flow)).map((r) => r.contact_id)).toHaveLength(1);

    const estimate = await t.call('GET', `/api/v1/campaigns/audience-estimate?list_ids=${list}`);
    expect(estimate.body.data.recipients).toBe(1);
    const filtered = await t.call('GET', `/api/v1/contacts?list_id=${list}`);
    expect(filtered.body.data.contacts.map((c: { email: string }) => c.email)).toEqual([member]);
    const segment = await t.call('POST', '/api/v1/segments/preview', { filter: { field: 'lists', op: 'in', value: [list] } });
    expect(segment.status, segment.text).toBe(200);
    expect(segment.body.data.count).toBe(1);
    expect(await count(list)).toBe(1);
    const campaign = await t.campaign(sendable([list]));
    expect((await t.send(campaign.id)).total_recipients).toBe(1);
    expect([...(await recipientRows(server, campaign.id)).keys()]).toEqual([member]);

    const url = confirmUrlIn(await mailTo(waiting));
    expect((await hit(onServer(server, url), { method: 'POST' })).status).toBe(200);
    const runs = await runsOf(t, flow);
    expect(runs).toHaveLength(2);
    expect((await t.call('GET', `/api/v1/campaigns/audience-estimate?list_ids=${list}`)).body.data.recipients).toBe(2);
    expect(await count(list)).toBe(2);
  });
});

describe('D20 the /c/ link refuses what it did not sign', () => {
  it('a tampered token, another kind of token, or one naming a deleted contact: 404 JSON, never a redirect, nothing changed', async () => {
    const list = await doubleList('Tamper');
    const email = at('tamper');
    const contact = await t.contact({ email, list_id: list, double_opt_in: true });
    const url = confirmUrlIn(await mailTo(email));
    const token = url.slice(url.lastIndexOf('/') + 1);
    const unsubscribeLike = server.core.signer.sign({ kind: 'unsubscribe', recipientId: contact.id });
    const bad = [...tamperings(url).map((u) => u.slice(u.lastIndexOf('/') + 1)), unsubscribeLike, 'x', `${token}x`, `.${token}`, encodeURIComponent('<script>')];
    for (const value of bad) {
      for (const method of ['GET', 'POST']) {
        const res = await hit(`${server.url}/c/${value}`, { method, body: method === 'POST' ? 'a=b' : undefined, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        expect(res.status, `${method} ${value}`).toBe(404);
        expect(res.headers.get('location')).toBeNull();
        expect(JSON.parse(res.text).error.code).toBe('NOT_FOUND');
      }
    }
    expect((await hit(`${server.url}/c/${'a'.repeat(300)}`)).status).toBe(400);
    expect(await memberships(contact.id)).toEqual([{ list_id: list, status: 'UNCONFIRMED' }]);
    expect((await t.call('DELETE', `/api/v1/contacts/${encodeURIComponent(email)}`)).status).toBe(200);
    expect((await hit(onServer(server, url))).status).toBe(404);
    expect((await hit(onServer(server, url), { method: 'POST' })).status).toBe(404);
  });

  it('50 confirmations at once confirm once: one record, contact_count moved by one', async () => {
    const list = await doubleList('Race');
    const email = at('race');
    await t.contact({ email, list_id: list, double_opt_in: true });
    const url = onServer(server, confirmUrlIn(await mailTo(email)));
    const answers = await Promise.all(Array.from({ length: 50 }, () => hit(url, { method: 'POST' })));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(await count(list)).toBe(1);
    expect((await consentsOf(email)).body.data.consents.map((c: { source: string }) => c.source)).toEqual(['API', 'CONFIRMATION']);
  });
});

describe('D19 and D21: suppressions and the confirmation mail', () => {
  it('a suppressed address gets no confirmation mail; an ERASURE one gets none from the API (D21), and confirming lifts the erasure', async () => {
    const list = await doubleList('Suppressed');
    const blocked = at('blocked');
    expect((await t.call('POST', '/api/v1/suppressions', { value: blocked })).status).toBe(200);
    const erased = at('erased');
    const hashed = `sha256:${createHash('sha256').update(erased).digest('hex')}`;
    const now = new Date().toISOString();
    await server.db.insertInto('suppressions').values([
      { account_id: t.accountId, value: hashed, reason: 'erased', source: 'ERASURE', created_at: now },
      { account_id: t.accountId, value: erased, reason: 'came back', source: 'ERASURE', created_at: now },
    ]).execute();
    await t.contact({ email: blocked, list_id: list, double_opt_in: true });
    await t.contact({ email: erased, list_id: list, double_opt_in: true });
    const probe = at('suppressed-probe');
    await t.contact({ email: probe, list_id: list, double_opt_in: true });
    await mailTo(probe);
    expect(sink.to(blocked)).toEqual([]);
    expect(sink.to(erased)).toEqual([]);
    // The one way back is the person's own: a form's confirmation (D21's one exception).
    const contact = (await t.call('GET', `/api/v1/contacts/${encodeURIComponent(erased)}`)).body.data;
    const result = await server.core.subscriptions.subscribe({ accountId: t.accountId, contactId: contact.id, listIds: [list], source: 'FORM', doubleOptIn: true });
    expect(result.confirmation_sent).toBe('sent');
    const url = confirmUrlIn(await mailTo(erased));
    expect((await hit(onServer(server, url), { method: 'POST' })).status).toBe(200);
    const left = await server.db.selectFrom('suppressions').select('value').where('account_id', '=', t.accountId).execute();
    expect(left.map((r) => r.value)).toEqual([blocked]);
  });

  it('D21: an erased address gets nothing, not even a confirmation, from an API add or a list add (an import asks no one to confirm); a form post brings it back', async () => {
    const list = (await createList({ name: 'Erased comes back', opt_in: 'double', is_public: true })).id as number;
    const email = at('erased-for-real');
    await t.contact({ email, list_id: list });
    expect((await t.call('POST', `/api/v1/contacts/${encodeURIComponent(email)}/erase`)).status).toBe(200);

    const added = await t.call('POST', '/api/v1/contacts', { email, list_id: list, double_opt_in: true });
    expect(added.status, added.text).toBe(200);
    expect((await t.call('POST', `/api/v1/lists/${list}/contacts`, { emails: [email], double_opt_in: true })).status).toBe(200);
    // A later mail to another address shows the transport has handed on what it had.
    const probe = at('erased-probe');
    await t.contact({ email: probe, list_id: list, double_opt_in: true });
    await mailTo(probe);
    expect(sink.to(email)).toEqual([]);

    const form = await t.call('POST', '/api/v1/forms', { name: 'Come back', list_ids: [list], fields: [{ name: 'email', label: 'E-mail' }] });
    expect(form.status, form.text).toBe(200);
    const posted = await server.request('POST', `/f/${form.body.data.uid}`, { body: { email }, headers: { accept: 'application/json', 'x-forwarded-for': '198.51.100.77' } });
    expect(posted.status, posted.text).toBe(200);
    const url = confirmUrlIn(await mailTo(email));
    expect((await hit(onServer(server, url), { method: 'POST' })).status).toBe(200);
    const erasures = await server.db.selectFrom('suppressions').select('value').where('account_id', '=', t.accountId).where('source', '=', 'ERASURE').execute();
    expect(erasures).toEqual([]);
  });
});

describe('D20 GET /contacts/{email}/consents', () => {
  it('404 CONTACT_NOT_FOUND for an unknown address, 403 without contacts.read, [] for a contact added by no list', async () => {
    const unknown = await consentsOf(at('nobody'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('CONTACT_NOT_FOUND');
    const email = at('plain');
    await t.contact({ email });
    expect((await consentsOf(email.toUpperCase())).body.data).toEqual({ consents: [] });
    const { key } = await server.createKey(t.accountId, ['lists.read']);
    const denied = await server.request('GET', `/api/v1/contacts/${encodeURIComponent(email)}/consents`, { key });
    expect(denied.status).toBe(403);
  });

  it('bulk import records IMPORT consents for the lists it joined', async () => {
    const list = (await createList({ name: 'Imported' })).id;
    const email = at('imported');
    const res = await server.request('POST', '/v1/contacts/bulk', { key: t.key, body: { listId: String(list), contacts: [{ email }] } });
    expect(res.status, res.text).toBe(200);
    expect((await consentsOf(email)).body.data.consents).toEqual([{ source: 'IMPORT', form_id: null, list_ids: [list], ip: null, user_agent: null, statement: null, at: expect.any(String) }]);
  });
});

describe('D20 the service the forms and the preference centre call', () => {
  it('subscribe from a form: a single list at once, a double one waiting with one mail for all waiting lists; the consent names the form and client', async () => {
    const single = (await createList({ name: 'Form single', is_public: true })).id;
    const d1 = await doubleList('Form double one', { is_public: true });
    const d2 = await doubleList('Form double two', { is_public: true });
    const email = at('form');
    const contact = await t.contact({ email });
    const result = await server.core.subscriptions.subscribe({ accountId: t.accountId, contactId: contact.id, listIds: [d2, single, d1, 999_999], source: 'FORM', formId: 77, ip: '198.51.100.4', userAgent: 'Form browser', doubleOptIn: true });
    expect(result).toMatchObject({
      lists: [
        { list_id: single, status: 'SUBSCRIBED' },
        { list_id: d1, status: 'UNCONFIRMED' },
        { list_id: d2, status: 'UNCONFIRMED' },
      ],
      awaiting_confirmation: [d1, d2],
      confirmation_sent: 'sent',
    });
    const mail = await mailTo(email);
    expect(mail.subject).toBe('Please confirm your subscription to Form double one and Form double two');
    expect((await consentsOf(email)).body.data.consents).toEqual([{ source: 'FORM', form_id: 77, list_ids: [single, d1, d2], ip: '198.51.100.4', user_agent: 'Form browser', statement: null, at: expect.any(String) }]);
    expect(await count(single)).toBe(1);
    const confirmed = await hit(onServer(server, confirmUrlIn(mail)), { method: 'POST' });
    expect(confirmed.text).toContain('Form double one and Form double two');
    expect(await memberships(contact.id)).toEqual([single, d1, d2].map((list_id) => ({ list_id, status: 'SUBSCRIBED' })));
  });

  it('a rollback of the caller sends no mail and leaves nothing', async () => {
    const list = await doubleList('Rolled back');
    const email = at('rollback');
    const contact = await t.contact({ email });
    let pending: Awaited<ReturnType<typeof server.core.subscriptions.subscribeIn>> | undefined;
    await expect(
      // Issue 29 item 4: the mail is the transaction's after-commit work, which a rollback drops.
      server.core.subscriptions.transaction(async (trx) => {
        pending = await server.core.subscriptions.subscribeIn(trx, { accountId: t.accountId, contactId: contact.id, listIds: [list], source: 'FORM', doubleOptIn: true });
        throw new Error('the caller failed');
      }),
    ).rejects.toThrow('the caller failed');
    expect(pending?.confirmation?.email).toBe(email);
    expect(pending?.confirmation_sent).toBeUndefined();
    // A later mail to another address shows the transport has handed on what it had.
    const probe = at('rollback-probe');
    await t.contact({ email: probe, list_id: list, double_opt_in: true });
    await mailTo(probe);
    expect(sink.to(email)).toHaveLength(0);
    expect(await memberships(contact.id)).toEqual([]);
    expect((await consentsOf(email)).body.data.consents).toEqual([]);
  });

  it("the preference centre: public lists as chosen, unchecked public ones UNSUBSCRIBED, private ones untouched, counts in step; a form's double opt-in asks again after", async () => {
    const a = (await createList({ name: 'Pref A', is_public: true })).id;
    const b = (await createList({ name: 'Pref B', is_public: true })).id;
    const hidden = (await createList({ name: 'Pref private' })).id;
    const email = at('pref');
    const contact = await t.contact({ email, list_id: a });
    await t.addToList(hidden, [email]);
    const prefs = server.core.subscriptions;
    expect((await prefs.preferencesOf(t.accountId, contact.id)).filter((l) => [a, b, hidden].includes(l.id))).toEqual([
      { id: a, name: 'Pref A', description: null, status: 'SUBSCRIBED' },
      { id: b, name: 'Pref B', description: null, status: null },
    ]);
    const changed = await prefs.updatePreferences(t.accountId, contact.id, [b, hidden], { ip: '192.0.2.1', userAgent: 'Prefs' });
    expect(changed).toEqual([
      { list_id: a, from: 'SUBSCRIBED', to: 'UNSUBSCRIBED' },
      { list_id: b, from: null, to: 'SUBSCRIBED' },
    ]);
    expect(await memberships(contact.id)).toEqual([
      { list_id: a, status: 'UNSUBSCRIBED' },
      { list_id: b, status: 'SUBSCRIBED' },
      { list_id: hidden, status: 'SUBSCRIBED' },
    ].sort((x, y) => x.list_id - y.list_id));
    expect([await count(a), await count(b), await count(hidden)]).toEqual([0, 1, 1]);
    // The person's unsubscribe holds against an API add and an import; only the person undoes it.
    expect((await t.addToList(a, [email])).already_members).toBe(1);
    expect(await count(a)).toBe(0);
    expect(await prefs.updatePreferences(t.accountId, contact.id, [a, b], {})).toEqual([{ list_id: a, from: 'UNSUBSCRIBED', to: 'SUBSCRIBED' }]);
    expect(await count(a)).toBe(1);
    const sources = (await consentsOf(email)).body.data.consents.map((c: { source: string; list_ids: number[] }) => [c.source, c.list_ids]);
    expect(sources).toEqual([['API', [a]], ['API', [hidden]], ['FORM', [b]], ['FORM', [a]]]);
  });
});

describe('D20 against mail-bombing through a public form', () => {
  it('an address gets at most 3 confirmation mails an hour from an account, however many clients ask; asking again records nothing new', async () => {
    const list = await doubleList('Bombed');
    const email = at('bombed');
    const contact = await t.contact({ email });
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await server.core.subscriptions.subscribe({ accountId: t.accountId, contactId: contact.id, listIds: [list], source: 'FORM', formId: 5, ip: `203.0.113.${i}`, doubleOptIn: true });
      outcomes.push(r.confirmation_sent);
    }
    expect(outcomes).toEqual([...Array(3).fill('sent'), ...Array(7).fill('limited')]);
    // A later mail to another address shows the transport has handed on what it had.
    const probe = at('bomb-probe');
    await t.contact({ email: probe, list_id: list, double_opt_in: true });
    await mailTo(probe);
    expect(sink.to(email)).toHaveLength(3);
    expect(await memberships(contact.id)).toEqual([{ list_id: list, status: 'UNCONFIRMED' }]);
    expect((await consentsOf(email)).body.data.consents.map((c: { source: string; ip: string }) => [c.source, c.ip])).toEqual([['FORM', '203.0.113.0']]);
  });
});

describe("D20 the service keeps to the account's own contacts", () => {
  it("another account's contact id subscribes nothing and has no preferences here", async () => {
    const other = await tenant(server);
    const theirs = await other.contact({ email: at('theirs') });
    const list = await doubleList('Mine only', { is_public: true });
    const result = await server.core.subscriptions.subscribe({ accountId: t.accountId, contactId: theirs.id, listIds: [list], source: 'FORM', doubleOptIn: true });
    expect(result).toMatchObject({ lists: [], changed: [], confirmation_sent: 'none' });
    expect(await memberships(theirs.id)).toEqual([]);
    await expect(server.core.subscriptions.preferencesOf(t.accountId, theirs.id)).rejects.toMatchObject({ code: 'CONTACT_NOT_FOUND' });
    await expect(server.core.subscriptions.updatePreferences(t.accountId, theirs.id, [list], {})).rejects.toMatchObject({ code: 'CONTACT_NOT_FOUND' });
    expect(await memberships(theirs.id)).toEqual([]);
  });
});
