/**
 * D21 with the dev inbox (no SMTP_URL): the inbox keeps a full copy of each message, merge fields
 * filled in, so erasing a person deletes the account's copies of mail to them, and only those.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;
const at = addressMaker('erase-inbox');

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING }); // no SMTP_URL: the dev inbox
  server.sender.dispatcher.start();
  t = await tenant(server);
});
afterAll(() => server?.close());

const inbox = async (who: Tenant) => (await who.call('GET', '/api/v1/dev/inbox?size=100')).body.data.messages as { to: string; html: string }[];

describe('D21: erasure and the dev inbox', () => {
  it("deletes the account's captured copies of mail to the address, and no other", async () => {
    const erased = at('erased');
    const kept = at('kept');
    const list = await t.list('Inbox');
    await t.contact({ email: erased, first_name: 'Zelda', list_id: list });
    await t.contact({ email: kept, first_name: 'Kim', list_id: list });
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    // Another account's copy of mail to the same address is its own.
    const other = await tenant(server);
    const otherList = await other.list('Other');
    await other.contact({ email: erased, list_id: otherList });
    const otherCampaign = await other.campaign(sendable([otherList]));
    await other.send(otherCampaign.id);
    await other.waitForStatus(otherCampaign.id, 'SENT');
    expect((await inbox(t)).map((m) => m.to).sort()).toEqual([erased, kept].sort());
    expect((await inbox(t)).find((m) => m.to === erased)!.html).toContain('Zelda');

    expect((await t.call('POST', `/api/v1/contacts/${encodeURIComponent(erased)}/erase`)).status).toBe(200);

    expect((await inbox(t)).map((m) => m.to)).toEqual([kept]);
    expect(await server.db.selectFrom('dev_inbox').select('id').where('account_id', '=', t.accountId).where('html', 'like', '%Zelda%').execute()).toEqual([]);
    expect((await inbox(other)).map((m) => m.to)).toEqual([erased]);
  });
});
