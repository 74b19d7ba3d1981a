import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientOf, recipientRows, sendable, tenant, type Tenant } from './send-helpers.ts';

// Issue 14 M1, the sending half: an address nodemailer cannot put in an envelope (CR LF in a
// quoted local part; the API refuses these now, but old data may hold them) is that recipient's
// failure alone. Counted as a transport failure, 25 of them made a whole campaign FAILED with none
// of its 10 good recipients sent.

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('envelope');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('M1: a per-recipient envelope error fails that recipient only', () => {
  it('25 addresses nodemailer refuses and 10 good ones: the 10 are received, the 25 are FAILED with the reason, the campaign is SENT', async () => {
    const list = await t.list('Old data');
    // Written past the API, as rows from before it refused such addresses; first, so they come first.
    const now = new Date().toISOString();
    const bad = Array.from({ length: 25 }, (_, i) => `"x${i}\r\ny"@example.com`);
    for (const email of bad) {
      const contact = await server.db
        .insertInto('contacts')
        .values({ account_id: t.accountId, email, first_name: 'Old', last_name: null, phone: null, tags: '[]', custom_fields: '{}', status: 'SUBSCRIBED', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await server.db.insertInto('list_members').values({ list_id: list, contact_id: contact.id, created_at: now }).execute();
    }
    const good = Array.from({ length: 10 }, (_, i) => at(`good${i}`));
    for (const email of good) await t.contact({ email, first_name: 'New', list_id: list });

    const { id } = await t.campaign(sendable([list]));
    expect((await t.send(id)).total_recipients).toBe(35);
    const done = await t.waitForStatus(id, ['SENT', 'FAILED']);
    expect(done.status, done.error).toBe('SENT');

    expect(messagesOfCampaign(sink.messages, id).map(recipientOf).sort()).toEqual([...good].sort());
    const rows = await recipientRows(server, id);
    for (const email of bad) {
      const row = rows.get(email)!;
      expect(row.status).toBe('FAILED');
      expect(row.last_error).toContain('Invalid recipient');
      expect(row.attempts).toBe(1); // given up at once: trying again would fail the same way
    }
    for (const email of good) expect(rows.get(email)!.status).toBe('SENT');
    expect(await t.stats(id)).toMatchObject({ sent: 10 });
  });
});
