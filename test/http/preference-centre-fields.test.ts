/**
 * Issue 34 item 13: custom field definitions (`/api/v1/contacts/custom-fields`, with contacts'
 * permissions), and the preference centre's "Your details": the person edits their own name and
 * the custom fields the account marks editable, each as its type requires. A hostile POST (the
 * address, the status, a field kept to the account) is refused whole, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/responses.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, PUBLIC_URL, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let other: Tenant;
let news: number;
const at = addressMaker('pref-fields');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
  other = await tenant(server);
  news = await t.list('News');
  expect((await t.call('PUT', `/api/v1/lists/${news}`, { is_public: true })).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

const define = (who: Tenant, key: string, body: Record<string, unknown>) => who.call('PUT', '/api/v1/contacts/custom-fields', { custom_fields: [{ key, ...body }] });
const definitionOf = (res: { body: any }, key: string) => res.body.data.custom_fields.find((d: { key: string }) => d.key === key);

/** A contact sent a campaign; answers its preference centre URL on the test server. */
async function personWithLink(label: string, fields: Record<string, unknown>) {
  const email = at(label);
  await t.contact({ email, ...fields });
  await t.addToList(news, [email]);
  const campaign = await t.campaign(sendable([news], { name: `To ${label}` }));
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  const footer = linksIn(String(sink.to(email)[0].html)).hrefs.filter((h) => h.startsWith(`${PUBLIC_URL}/p/`));
  return { email, url: onServer(server, footer.at(-1)!) };
}

const postDetails = (url: string, pairs: [string, string][]) =>
  hit(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams([['action', 'details'], ...pairs]).toString() });

describe('custom field definitions (the API)', () => {
  it('PUT makes then changes each by key; omitted label and flag are kept; GET lists them by key', async () => {
    const made = await define(t, 'plan', { type: 'text', label: '  Your   plan ', editable_by_contact: true });
    expect(made.status, made.text).toBe(200);
    expect(definitionOf(made, 'plan')).toMatchObject({ key: 'plan', type: 'text', label: 'Your plan', editable_by_contact: true });
    const changed = await define(t, 'plan', { type: 'number' });
    expect(definitionOf(changed, 'plan')).toMatchObject({ key: 'plan', type: 'number', label: 'Your plan', editable_by_contact: true });
    await define(t, 'age', { type: 'number' });
    const listed = (await t.call('GET', '/api/v1/contacts/custom-fields')).body.data.custom_fields;
    expect(listed.map((d: { key: string }) => d.key)).toEqual(expect.arrayContaining(['age', 'plan']));
    expect(listed.find((d: { key: string }) => d.key === 'age')).toMatchObject({ type: 'number', label: null, editable_by_contact: false });
  });

  it.each([
    ['1st', { type: 'text' }, /custom_fields\[0\]\.key must be a letter/],
    ['ok', { type: 'date' }, /type/],
    ['ok', { type: 'text', label: 'x'.repeat(101) }, /label must be at most 100 characters/],
    ['ok', { type: 'text', editable_by_contact: 'yes' }, /editable_by_contact/],
  ])('refuses key %s with %o (400), and a refused one changes none of the others given with it', async (key, body, message) => {
    const res = await t.call('PUT', '/api/v1/contacts/custom-fields', { custom_fields: [{ key: 'not_made', type: 'text' }, { key, ...body }] });
    expectError(res, 400, 'INVALID_REQUEST', message.source.startsWith('custom_fields') ? /custom_fields\[1\]\.key must be a letter/ : message);
    expect(definitionOf(await t.call('GET', '/api/v1/contacts/custom-fields'), 'not_made')).toBeUndefined();
  });

  it('refuses a key given twice, and no definitions at all', async () => {
    expectError(await t.call('PUT', '/api/v1/contacts/custom-fields', { custom_fields: [{ key: 'twice', type: 'text' }, { key: 'twice', type: 'number' }] }), 400, 'INVALID_REQUEST', /twice appears more than once/);
    expectError(await t.call('PUT', '/api/v1/contacts/custom-fields', { custom_fields: [] }), 400, 'INVALID_REQUEST');
  });

  it("another account neither sees nor changes the account's definitions", async () => {
    await define(t, 'secret_score', { type: 'number', editable_by_contact: false });
    const theirs = (await other.call('GET', '/api/v1/contacts/custom-fields')).body.data.custom_fields;
    expect(theirs.map((d: { key: string }) => d.key)).not.toContain('secret_score');
    // Its PUT of the same key is its own definition.
    expect((await define(other, 'secret_score', { type: 'text', editable_by_contact: true })).status).toBe(200);
    const ours = (await t.call('GET', '/api/v1/contacts/custom-fields')).body.data.custom_fields.find((d: { key: string }) => d.key === 'secret_score');
    expect(ours).toMatchObject({ type: 'number', editable_by_contact: false });
  });
});

describe("the preference centre's details", () => {
  beforeAll(async () => {
    await define(t, 'company', { type: 'text', label: 'Company <Inc>', editable_by_contact: true });
    await define(t, 'employees', { type: 'number', editable_by_contact: true });
    await define(t, 'likes_cats', { type: 'boolean', label: 'I like cats', editable_by_contact: true });
    await define(t, 'lead_tier', { type: 'text', editable_by_contact: false });
  });

  it('shows the name and the editable fields with their values (escaped), never one kept to the account', async () => {
    const { url } = await personWithLink('page', { first_name: 'Ann', custom_fields: { company: 'A&B "Co"', lead_tier: 'gold', employees: 12 } });
    const page = await hit(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="first_name" value="Ann"');
    expect(page.text).toContain('Company &#60;Inc&#62;');
    expect(page.text).toContain('name="custom_fields.company" value="A&#38;B &#34;Co&#34;"');
    expect(page.text).toMatch(/name="custom_fields.employees" value="12" type="number"/);
    expect(page.text).toMatch(/type="checkbox" name="custom_fields.likes_cats" value="true" style/);
    expect(page.text).not.toContain('lead_tier');
    expect(page.text).not.toContain('gold');
  });

  it('saves the name and the fields as their types require; blank clears; a ticked box is true, an unticked one false', async () => {
    const { email, url } = await personWithLink('save', { first_name: 'Ann', last_name: 'Old', custom_fields: { company: 'Old Co', lead_tier: 'gold' } });
    const res = await postDetails(url, [
      ['first_name', '  Zed '],
      ['last_name', ''],
      ['custom_fields.company', 'New Co'],
      ['custom_fields.employees', '42.5'],
      ['custom_fields.likes_cats', 'false'],
      ['custom_fields.likes_cats', 'true'],
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('Your details are saved.');
    const contact = await t.getContact(email);
    expect(contact).toMatchObject({ email, first_name: 'Zed', last_name: null, status: 'SUBSCRIBED', custom_fields: { company: 'New Co', employees: 42.5, likes_cats: true, lead_tier: 'gold' } });
    await postDetails(url, [['custom_fields.likes_cats', 'false'], ['custom_fields.company', ' ']]);
    expect((await t.getContact(email)).custom_fields).toEqual({ employees: 42.5, likes_cats: false, lead_tier: 'gold' });
  });

  it.each([
    [[['email', 'attacker@example.com']], 'email cannot be changed here'],
    [[['status', 'UNSUBSCRIBED']], 'status cannot be changed here'],
    [[['custom_fields.lead_tier', 'platinum']], 'custom_fields.lead_tier cannot be changed here'],
    [[['custom_fields.secret_score', '1']], 'custom_fields.secret_score cannot be changed here'],
    [[['tags', 'vip']], 'tags cannot be changed here'],
    [[['custom_fields.employees', 'many']], 'custom_fields.employees must be a number'],
    [[['custom_fields.employees', 'Infinity']], 'custom_fields.employees must be a number'],
    [[['custom_fields.likes_cats', 'maybe']], 'custom_fields.likes_cats must be true or false'],
    [[['first_name', 'x'.repeat(256)]], 'first_name must be at most 255 characters'],
    [[['custom_fields.company', 'x'.repeat(1001)]], 'custom_fields.company must be at most 1000 characters'],
    [[['first_name', 'A'], ['first_name', 'B']], 'first_name must be a single value'],
  ] as [string, string][][][])('a hostile or bad POST %j is refused whole (400, the page says so) and nothing changes', async (pairs, said) => {
    const { email, url } = await personWithLink(`bad-${Math.random().toString(36).slice(2, 8)}`, { first_name: 'Kept', custom_fields: { lead_tier: 'gold', company: 'Kept Co' } });
    const before = await t.getContact(email);
    const res = await postDetails(url, [['last_name', 'Changed'], ...(pairs as unknown as [string, string][])]);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('Nothing was saved');
    expect(res.text).toContain(said as unknown as string);
    const after = await t.getContact(email);
    expect(after).toEqual(before);
    // The address a hostile POST named was never made a contact.
    expect((await t.call('GET', '/api/v1/contacts/attacker@example.com')).status).toBe(404);
  });

  it("another account's editable definition of the same key makes nothing editable here", async () => {
    const { email, url } = await personWithLink('isolated', { custom_fields: { secret_score: 7 } });
    expect((await hit(url)).text).not.toContain('secret_score');
    const res = await postDetails(url, [['custom_fields.secret_score', '99']]);
    expect(res.status).toBe(400);
    expect((await t.getContact(email)).custom_fields).toEqual({ secret_score: 7 });
  });
});
