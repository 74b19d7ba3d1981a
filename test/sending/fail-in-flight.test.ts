/**
 * Issue 19's named risk, mended first: a campaign that goes FAILED (its transport kept failing)
 * must not lose the outcome of a message already in flight. `fail` used to give every claimed row
 * back to PENDING; the in-flight message's SENT record then matched nothing (it is guarded by
 * CLAIMED) and /send mailed that person again. Now each sender gives back only what it holds
 * unsent, and rows of a sender that died come back when their lease ends (D13).
 *
 * The moment "failed while another message is in flight" is set up through the sender's own
 * steps (claim, fail, record), as two concurrency slots of one sender meet it; the resumed send
 * then goes through the API and the real dispatcher.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimRecipients, markSentMany, releaseClaims } from '../../src/domain/campaigns/recipients.repo.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, sendable, tenant, type Tenant } from './send-helpers.ts';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING });
  t = await tenant(server);
});
afterAll(() => server?.close());

describe('a campaign failing while a message is in flight', () => {
  it('keeps that message SENT, and /send does not mail it again', async () => {
    const list = await t.list('In flight');
    for (const name of ['first', 'second', 'third']) await t.contact({ email: `${name}@flight.test`, list_id: list });
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id); // snapshot; this file's sender is not running yet

    const { db, dialect } = server.core.handle;
    const now = new Date();
    const claimed = await claimRecipients(db, dialect, { campaignId: campaign.id, limit: 10, now: now.toISOString(), leaseUntil: new Date(now.getTime() + 60_000).toISOString() });
    expect(claimed).toHaveLength(3);
    const [inFlight, ...unsent] = [...claimed].sort((a, b) => a.email.localeCompare(b.email));

    // Another slot's failures push the campaign over its budget while `inFlight` is being sent.
    expect(await server.core.campaignLifecycle.fail(campaign.id, 'the mail transport keeps failing: connection refused')).toBe(true);
    // The server accepted `inFlight`: its record must land.
    const recorded = await db.transaction().execute((trx) => markSentMany(trx, [{ row: inFlight, messageId: '<in-flight@flight.test>' }], new Date().toISOString()));
    expect(recorded).toHaveLength(1);
    // The failing sender gives back what it had not started.
    await releaseClaims(db, unsent.map((r) => r.id));

    const failed = await t.getCampaign(campaign.id);
    expect(failed.status).toBe('FAILED');
    await t.send(campaign.id); // resume: only what is unsent
    server.sender.dispatcher.start();
    await t.waitForStatus(campaign.id, 'SENT');

    const inbox = (await t.call('GET', '/api/v1/dev/inbox?size=100')).body.data.messages.filter((m: any) => m.campaign_id === campaign.id);
    expect(inbox.map((m: any) => m.to).sort()).toEqual(unsent.map((r) => r.email).sort());
    const ledger = (await t.call('GET', `/api/v1/campaigns/${campaign.id}/recipients`)).body.data.recipients;
    expect(ledger.map((r: any) => [r.email, r.status, r.attempts])).toEqual([
      ['first@flight.test', 'SENT', 1],
      ['second@flight.test', 'SENT', 1],
      ['third@flight.test', 'SENT', 1],
    ]);
    expect((await t.stats(campaign.id)).sent).toBe(3);
  });
});
