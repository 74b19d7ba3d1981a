import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, sendable, tenant, type Tenant } from './send-helpers.ts';

// Issue 14 H5: what the dev inbox (no SMTP_URL) keeps is bounded: the newest DEV_INBOX_MAX_MESSAGES
// per account, and each message's HTML, text and raw source up to 256 KB, cut with a note past it.
// One test send of large messages grew the database by about 200 MB.

/** DEV_INBOX_MAX_PART_BYTES */
const KEPT_BYTES = 256 * 1024;

let server: TestServer;
let t: Tenant;
const at = addressMaker('inboxcap');

beforeAll(async () => {
  // No SMTP_URL. Each message renders 1 MB of Liquid output: on a loaded 2-core machine that can
  // pass the default 300 ms render budget, which would fail the recipients and leave the inbox
  // empty; the budget is not what this file tests (render-limits.test.ts does).
  server = await startTestServer({ ...FAST_SENDING, DEV_INBOX_MAX_MESSAGES: '3', SEND_RENDER_BUDGET_MS: '5000' });
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(() => server?.close());

describe('H5: the dev inbox caps what it stores', () => {
  it('keeps the newest 3 messages of the account, each part at most 256 KB, with a note where it was cut', async () => {
    const list = await t.list('Large');
    for (let i = 0; i < 5; i++) await t.contact({ email: at(`p${i}`), list_id: list });
    // 1 MB of text and of HTML per message: under the render cap (2 MB), over what the inbox keeps.
    const large = '{% for i in (1..100000) %}0123456789{% endfor %}';
    const { id } = await t.campaign(sendable([list], { html: `<p>${large}</p>`, text: large }));
    await t.send(id);
    expect((await t.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');

    const res = await t.call('GET', '/api/v1/dev/inbox?size=100');
    expect(res.body.data.totalElements).toBe(3);
    for (const m of res.body.data.messages) {
      for (const part of [m.html, m.text]) {
        expect(Buffer.byteLength(part)).toBeLessThan(KEPT_BYTES + 200);
        expect(part).toMatch(/\[cut by the dev inbox: \d+ bytes, of which it keeps 262144\]\n$/);
      }
    }
    const raws = await server.db.selectFrom('dev_inbox').select('raw').where('account_id', '=', t.accountId).execute();
    expect(raws).toHaveLength(3);
    for (const { raw } of raws) expect(Buffer.byteLength(raw)).toBeLessThan(KEPT_BYTES + 200);
  });

  it("another account's messages do not push this account's out", async () => {
    const other = await tenant(server);
    const list = await other.list('Small');
    await other.contact({ email: at('other'), list_id: list });
    const { id } = await other.campaign(sendable([list]));
    await other.send(id);
    expect((await other.waitForStatus(id, ['SENT', 'FAILED'])).status).toBe('SENT');
    expect((await other.call('GET', '/api/v1/dev/inbox')).body.data.totalElements).toBe(1);
    expect((await t.call('GET', '/api/v1/dev/inbox')).body.data.totalElements).toBe(3);
  });
});
