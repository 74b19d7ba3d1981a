/**
 * Issue 34: a send under way can be paused, resumed and cancelled, crash-safe like sending (D13).
 * The sender is not started: each test runs its rounds by hand (`runOnce(0)` is one turn per
 * campaign: one batch of SEND_BATCH_SIZE), so "mid-send" is a step, not a moment. A batch another
 * sender claimed as the pause or cancel landed is set up through the sender's own steps (claim,
 * record, give back), as fail-in-flight.test.ts does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimRecipients, markSentMany, releaseClaims, settleCancelledRecipients } from '../../src/domain/campaigns/recipients.repo.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, sendable, tenant, type Tenant } from './send-helpers.ts';

const BATCH = 4;
let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING, SEND_BATCH_SIZE: String(BATCH) });
  t = await tenant(server);
});
afterAll(() => server?.close());

/** A SENDING campaign to `n` contacts (its audience snapshotted, nothing sent yet). */
async function sendingCampaign(label: string, n: number) {
  const list = await t.list(label);
  const emails = Array.from({ length: n }, (_, i) => `${label.toLowerCase()}-${String(i).padStart(2, '0')}@pause.test`);
  for (const email of emails) await t.contact({ email, list_id: list });
  const campaign = await t.campaign(sendable([list]));
  await t.send(campaign.id);
  return { id: campaign.id, emails };
}

const action = (id: number, name: 'pause' | 'resume' | 'cancel') => t.call('POST', `/api/v1/campaigns/${id}/${name}`);

async function ledger(id: number, status?: string): Promise<{ email: string; status: string; attempts: number }[]> {
  const res = await t.call('GET', `/api/v1/campaigns/${id}/recipients?size=100${status ? `&status=${status}` : ''}`);
  expect(res.status).toBe(200);
  return res.body.data.recipients;
}

async function inboxOf(id: number): Promise<string[]> {
  const messages = (await t.call('GET', '/api/v1/dev/inbox?size=100')).body.data.messages.filter((m: any) => m.campaign_id === id);
  return messages.map((m: any) => m.to).sort();
}

/** Claims up to `limit` of the campaign's rows as another sender would, leased for a minute. */
async function claimAsAnotherSender(id: number, limit: number) {
  const { db, dialect } = server.core.handle;
  const now = new Date();
  return claimRecipients(db, dialect, { campaignId: id, limit, now: now.toISOString(), leaseUntil: new Date(now.getTime() + 60_000).toISOString() });
}

/** One turn per SENDING campaign: one batch each. */
const runOnce = () => server.sender.dispatcher.runOnce(0);

describe('pause and resume', () => {
  it('stops claiming at the pause, and the resumed send mails each recipient exactly once', async () => {
    const { id, emails } = await sendingCampaign('Paused', 11);
    await runOnce();
    const first = (await ledger(id, 'SENT')).length;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(BATCH);

    // Another sender holds the next two as the pause lands.
    const held = await claimAsAnotherSender(id, 2);
    expect(held).toHaveLength(2);
    const paused = await action(id, 'pause');
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body.data.status).toBe('PAUSED');

    // Nothing more is claimed, by this sender or another.
    await runOnce();
    expect(await claimAsAnotherSender(id, 10)).toEqual([]);
    // The other sender's batch finishes cleanly: one was in flight (recorded), one is given back.
    const { db } = server.core.handle;
    await db.transaction().execute((trx) => markSentMany(trx, [{ row: held[0]!, messageId: `<held-${id}@pause.test>` }], new Date().toISOString()));
    await releaseClaims(db, [held[1]!.id]);

    expect((await t.getCampaign(id)).status).toBe('PAUSED');
    expect(await ledger(id, 'SENT')).toHaveLength(first + 1);
    expect(await ledger(id, 'PENDING')).toHaveLength(11 - first - 1);
    const progress = (await t.call('GET', `/api/v1/campaigns/${id}/progress`)).body.data;
    expect(progress).toMatchObject({ status: 'PAUSED', sent: first + 1, remaining: 11 - first - 1, cancelled: 0 });

    const resumed = await action(id, 'resume');
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.data.status).toBe('SENDING');
    while ((await t.getCampaign(id)).status === 'SENDING') await runOnce();
    expect((await t.getCampaign(id)).status).toBe('SENT');

    // Each recipient once: the dev inbox holds the messages this sender handed over (not the one
    // recorded for the other sender above), and the ledger says each was sent with one attempt.
    const inbox = await inboxOf(id);
    expect(new Set(inbox).size).toBe(inbox.length);
    expect(inbox.sort()).toEqual(emails.filter((e) => e !== held[0]!.email).sort());
    expect((await ledger(id)).map((r) => [r.email, r.status, r.attempts])).toEqual(emails.map((e) => [e, 'SENT', 1]));
    expect((await t.stats(id)).sent).toBe(11);
  });

  it('answers 409 INVALID_STATE from any other status, and 404 for another account', async () => {
    const draft = await t.campaign({ name: 'Draft' });
    for (const name of ['pause', 'resume', 'cancel'] as const) {
      const res = await action(draft.id, name);
      expect(res.status, name).toBe(409);
      expect(res.body.error.code).toBe('INVALID_STATE');
    }
    const { id } = await sendingCampaign('States', 2);
    expect((await action(id, 'resume')).status).toBe(409);
    expect((await action(id, 'pause')).status).toBe(200);
    expect((await action(id, 'pause')).status).toBe(409);
    // Neither a paused campaign nor a sending one is deleted from under its sender.
    const deleted = await t.call('DELETE', `/api/v1/campaigns/${id}`);
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.message).toMatch(/PAUSED: cancel it first/);

    const other = await tenant(server);
    for (const name of ['pause', 'resume', 'cancel'] as const) {
      const res = await other.call('POST', `/api/v1/campaigns/${id}/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    }
    expect((await t.getCampaign(id)).status).toBe('PAUSED');

    // A SCHEDULED campaign is unscheduled, not cancelled.
    const list = await t.list('Scheduled');
    await t.contact({ email: 'scheduled@pause.test', list_id: list });
    const scheduled = await t.campaign(sendable([list]));
    expect((await t.call('POST', `/api/v1/campaigns/${scheduled.id}/schedule`, { scheduled_at: new Date(Date.now() + 86_400_000).toISOString().slice(0, 19) })).status).toBe(200);
    expect((await action(scheduled.id, 'cancel')).status).toBe(409);
  });

  it('needs campaigns.send', async () => {
    const { id } = await sendingCampaign('Permission', 1);
    const { key } = await server.createKey(t.accountId, ['campaigns.read', 'campaigns.write']);
    for (const name of ['pause', 'resume', 'cancel'] as const) {
      const res = await server.request('POST', `/api/v1/campaigns/${id}/${name}`, { key });
      expect(res.status, name).toBe(403);
      expect(res.body.error.code).toBe('PERMISSION_DENIED');
    }
    expect((await t.getCampaign(id)).status).toBe('SENDING');
  });
});

describe('cancel', () => {
  it('leaves every recipient not yet sent CANCELLED, in the same transaction, and visible in the ledger', async () => {
    const { id, emails } = await sendingCampaign('Cancelled', 10);
    await runOnce();
    const first = (await ledger(id, 'SENT')).length;
    expect(first).toBeGreaterThan(0);
    const [inFlight, givenBack] = await claimAsAnotherSender(id, 2);

    const cancelled = await action(id, 'cancel');
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data.status).toBe('CANCELLED');
    // At once: all but the sent and the two another sender holds (shown PENDING while held).
    expect(await ledger(id, 'CANCELLED')).toHaveLength(10 - first - 2);
    expect(await ledger(id, 'PENDING')).toHaveLength(2);

    // The held batch ends: the message in flight keeps its outcome; the one given back is CANCELLED, not PENDING.
    const { db } = server.core.handle;
    await db.transaction().execute((trx) => markSentMany(trx, [{ row: inFlight!, messageId: `<in-flight-${id}@pause.test>` }], new Date().toISOString()));
    await releaseClaims(db, [givenBack!.id]);

    await runOnce();
    const rows = await ledger(id);
    expect(rows.filter((r) => r.status === 'SENT')).toHaveLength(first + 1);
    const sentBefore = new Set(await inboxOf(id));
    expect(sentBefore.size).toBe(first);
    expect(rows.filter((r) => r.status === 'CANCELLED').map((r) => r.email)).toEqual(emails.filter((e) => !sentBefore.has(e) && e !== inFlight!.email));
    expect(rows.filter((r) => r.status === 'CANCELLED').every((r) => r.attempts === 0)).toBe(true);
    expect((await t.getCampaign(id)).status).toBe('CANCELLED');
    const progress = (await t.call('GET', `/api/v1/campaigns/${id}/progress`)).body.data;
    expect(progress).toMatchObject({ status: 'CANCELLED', sent: first + 1, cancelled: 10 - first - 1, remaining: 0 });

    // Final: nothing leaves CANCELLED; it may be deleted.
    for (const name of ['pause', 'resume', 'cancel'] as const) expect((await action(id, name)).status, name).toBe(409);
    expect((await t.call('POST', `/api/v1/campaigns/${id}/send`)).status).toBe(409);
    expect((await t.call('DELETE', `/api/v1/campaigns/${id}`)).status).toBe(200);
  });

  it('cancels a paused campaign, and what a sender that died held once its lease ends', async () => {
    const { id } = await sendingCampaign('Dead', 6);
    const dead = await claimAsAnotherSender(id, 2); // a sender that dies holding them
    expect((await action(id, 'pause')).status).toBe(200);
    expect((await action(id, 'cancel')).body.data.status).toBe('CANCELLED');
    expect(await ledger(id, 'CANCELLED')).toHaveLength(4);
    expect(await ledger(id, 'PENDING')).toHaveLength(2);

    // While their lease lasts they may be in flight: left alone. Once it has ended: CANCELLED.
    const { db } = server.core.handle;
    await settleCancelledRecipients(db, new Date().toISOString());
    expect(await ledger(id, 'PENDING')).toHaveLength(2);
    await settleCancelledRecipients(db, new Date(Date.now() + 61_000).toISOString());
    expect((await ledger(id, 'CANCELLED')).map((r) => r.email)).toEqual(expect.arrayContaining(dead.map((r) => r.email)));
    expect(await ledger(id)).toHaveLength(6);
    expect(await ledger(id, 'PENDING')).toEqual([]);
    expect(await inboxOf(id)).toEqual([]);
  });
});
