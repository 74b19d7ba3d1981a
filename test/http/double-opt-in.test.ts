import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, PUBLIC_URL, tenant, type Tenant } from '../sending/send-helpers.ts';

// D20: double opt-in. A membership asked for with double opt-in on a `double` list waits
// UNCONFIRMED (in no audience, not in contact_count) until the person confirms through the
// signed `/c/{token}` link of the one confirmation mail.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('doi');

const listRow = (id: number) => server.db.selectFrom('lists').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const memberships = (contactId: number) => server.db.selectFrom('list_members').select(['list_id', 'status']).where('contact_id', '=', contactId).orderBy('list_id').execute();
const confirmLinkIn = (text: string) => {
  const m = new RegExp(`${PUBLIC_URL.replace(/[.]/g, '\\.')}/c/([A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)`).exec(text);
  expect(m, text).not.toBeNull();
  return m![1];
};

/** The HTML part's text as a browser reads it (the mail escapes `/` as `&#x2F;`). */
const decodeEntities = (html: string) => html.replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16))).replace(/&amp;/g, '&');

async function doubleList(name: string): Promise<number> {
  const id = await t.list(name);
  await server.db.updateTable('lists').set({ opt_in: 'double' }).where('id', '=', id).execute();
  return id;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('D20 double opt-in (service and contacts API)', () => {
  it('a contact created with double_opt_in on a double list waits UNCONFIRMED, gets one mail, and confirming subscribes it', async () => {
    const list = await doubleList('Weekly');
    const email = at('new');
    const contact = await t.contact({ email, list_id: list, double_opt_in: true });
    expect(contact.list_ids).toEqual([]);
    expect(contact.memberships).toEqual([{ list_id: list, status: 'UNCONFIRMED' }]);
    expect((await listRow(list)).contact_count).toBe(0);

    const [mail] = await sink.waitFor(1);
    expect(mail.envelope.to).toEqual([email]);
    expect(mail.subject).toContain('Weekly');
    const token = confirmLinkIn(mail.text!);
    expect(decodeEntities(mail.html as string)).toContain(`<a href="${PUBLIC_URL}/c/${token}"`);

    const confirmed = await server.deps.subscriptions.confirm(token, { ip: '203.0.113.9', userAgent: 'Phone' });
    expect(confirmed?.lists).toEqual([{ id: list, name: 'Weekly' }]);
    expect(await memberships(contact.id)).toEqual([{ list_id: list, status: 'SUBSCRIBED' }]);
    expect((await listRow(list)).contact_count).toBe(1);
    // Idempotent: nothing waits, nothing changes, no second record.
    expect((await server.deps.subscriptions.confirm(token, {}))?.lists).toEqual([]);
    expect((await listRow(list)).contact_count).toBe(1);
    const consents = await server.deps.subscriptions.consentsOf(t.accountId, contact.id);
    expect(consents.map((c) => [c.source, c.list_ids, c.ip])).toEqual([
      ['API', [list], '127.0.0.1'],
      ['CONFIRMATION', [list], '203.0.113.9'],
    ]);
  });
});
