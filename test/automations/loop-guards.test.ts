/**
 * Issue 14 C1: an automation that re-fires its own trigger must not hang the service. A step's
 * own changes never start a run of a workflow in its run's chain (its own included); runs of one
 * workflow for one contact are capped per 24 hours, the refusal on record as an EXITED run; and
 * a workflow can always be stopped: deactivated, with its runs ended. Runs on SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_CAP, RUN_CAP_REASON } from '../../src/domain/automations/contact-activity.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';
import { activeAutomation, allEnded, event, runsOf, waitForRuns, type Run } from './helpers.ts';

let server: TestServer;
const at = addressMaker('loop');
const path = (email: string) => `/api/v1/contacts/${encodeURIComponent(email)}`;
const tag = (name: string) => ({ type: 'ADD_TAG', tag: name });
const untag = (name: string) => ({ type: 'REMOVE_TAG', tag: name });

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING });
  server.sender.automationRunner.start();
});
afterAll(() => server?.close());

async function health(): Promise<void> {
  const res = await server.request('GET', '/health');
  expect(res.status).toBe(200);
}

/** How many runs the workflow has, however many pages (the runs list's total). */
async function runCount(t: Tenant, automationId: number): Promise<number> {
  const res = await t.call('GET', `/api/v1/automations/${automationId}/runs?size=1`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.totalElements;
}

/**
 * The runner has worked through everything due before now: a marker workflow's run, started
 * after the change under test, has ended. A loop would have had the whole while to start more runs.
 */
async function runnerCaughtUp(t: Tenant, marker: number, times: number): Promise<void> {
  expect((await event(server, t.key, { email: at('marker'), event: 'marker' })).status).toBe(202);
  await waitForRuns(t, marker, allEnded(times));
}

describe('C1: an automation that re-fires its own trigger', () => {
  it('TAG_ADDED "loop" -> REMOVE_TAG, ADD_TAG "loop" with re-entry runs once per change from outside, and /health answers throughout', async () => {
    const t = await tenant(server);
    const marker = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'marker' }, steps: [tag('marked')], allow_reentry: true });
    const loop = await activeAutomation(t, { trigger: { type: 'TAG_ADDED', tag: 'loop' }, steps: [untag('loop'), tag('loop')], allow_reentry: true });
    await t.contact({ email: at('self') });

    expect((await t.call('PUT', path(at('self')), { tags: ['loop'] })).status).toBe(200);
    await health();
    const [run] = await waitForRuns(t, loop, allEnded(1));
    expect(run).toMatchObject({ status: 'COMPLETED', ended_reason: null });
    expect(run.history.map((s: Run) => [s.type, s.status])).toEqual([
      ['REMOVE_TAG', 'DONE'],
      ['ADD_TAG', 'DONE'],
    ]);
    await runnerCaughtUp(t, marker, 1);
    await health();
    expect(await runCount(t, loop)).toBe(1);
    expect((await t.getContact(at('self'))).tags).toEqual(['loop']);

    // A change from outside still starts it, once more.
    await t.call('PUT', path(at('self')), { tags: [] });
    await t.call('PUT', path(at('self')), { tags: ['loop'] });
    await waitForRuns(t, loop, allEnded(2));
    await runnerCaughtUp(t, marker, 2);
    expect(await runCount(t, loop)).toBe(2);
  });

  it('two workflows without re-entry ping-ponging two tags run once each', async () => {
    const t = await tenant(server);
    const marker = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'marker' }, steps: [tag('marked')], allow_reentry: true });
    const ping = await activeAutomation(t, { trigger: { type: 'TAG_ADDED', tag: 'ping' }, steps: [untag('pong'), tag('pong')] });
    const pong = await activeAutomation(t, { trigger: { type: 'TAG_ADDED', tag: 'pong' }, steps: [untag('ping'), tag('ping')] });
    await t.contact({ email: at('pp'), tags: ['ping'] });

    await waitForRuns(t, pong, allEnded(1));
    await waitForRuns(t, ping, allEnded(1));
    await health();
    await runnerCaughtUp(t, marker, 1);
    expect(await runCount(t, ping)).toBe(1);
    expect(await runCount(t, pong)).toBe(1);
    // pong's ADD_TAG "ping" happened (it re-added the tag), and started nothing.
    const [pongRun] = await runsOf(t, pong);
    expect(pongRun.history.map((s: Run) => s.status)).toEqual(['DONE', 'DONE']);
    expect((await t.getContact(at('pp'))).tags.sort()).toEqual(['ping', 'pong']);
  });

  it(`caps runs of one workflow for one contact at ${RUN_CAP} a day: the next is EXITED with the reason, later ones are not recorded`, async () => {
    const t = await tenant(server);
    // What the chain cannot see: the same workflow started again and again from outside (as a
    // receiver of its webhooks posting events back would).
    const visit = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'visit' }, steps: [{ type: 'UPDATE_LEAD_SCORE', delta: 1 }], allow_reentry: true });
    const other = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'visit' }, steps: [tag('visited')], allow_reentry: true });
    for (let i = 0; i < RUN_CAP + 5; i++) expect((await event(server, t.key, { email: at('cap'), event: 'visit' })).status).toBe(202);
    // Another contact is not affected by the first one's cap.
    expect((await event(server, t.key, { email: at('cap-other'), event: 'visit' })).status).toBe(202);

    const deadline = Date.now() + 30_000;
    while ((await t.getContact(at('cap'))).lead_score < RUN_CAP && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await health();
    expect(await runCount(t, visit)).toBe(RUN_CAP + 2);
    expect(await runCount(t, other)).toBe(RUN_CAP + 2);
    const newest = (await runsOf(t, visit)).filter((r) => r.email === at('cap'));
    expect(newest[0]).toMatchObject({ status: 'EXITED', ended_reason: RUN_CAP_REASON, history: [], current_step: null });
    expect(newest.slice(1).every((r) => r.ended_reason === null)).toBe(true);
    await waitForRuns(t, visit, (runs) => runs.every((r) => r.status !== 'ACTIVE'));
    expect((await t.getContact(at('cap'))).lead_score).toBe(RUN_CAP);
    expect((await t.getContact(at('cap-other'))).lead_score).toBe(1);
  });

  it('stop deactivates a workflow and ends every run of it under load, EXITED "ended by deactivation"; deactivate alone lets runs go on', async () => {
    const t = await tenant(server);
    const steps = [tag('a'), untag('a'), tag('b'), untag('b'), { type: 'UPDATE_LEAD_SCORE', delta: 1 }, { type: 'WAIT', seconds: 3600 }, tag('never')];
    const busy = await activeAutomation(t, { trigger: { type: 'TAG_ADDED', tag: 'busy' }, steps });
    const kept = await activeAutomation(t, { trigger: { type: 'TAG_ADDED', tag: 'kept' }, steps: [{ type: 'WAIT', seconds: 3600 }, tag('never')] });
    const contacts = Array.from({ length: 1500 }, (_, i) => ({ email: at(`load${i}`), tags: ['busy', ...(i < 3 ? ['kept'] : [])] }));
    for (let i = 0; i < contacts.length; i += 500) {
      const res = await server.request('POST', '/v1/contacts/bulk', { key: t.key, body: { contacts: contacts.slice(i, i + 500) } });
      expect(res.status, res.text).toBe(200);
    }
    expect(await runCount(t, busy)).toBe(1500);

    // While the runner works through them.
    const ended = await t.call('POST', `/api/v1/automations/${busy}/stop`);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.data.is_active).toBe(false);
    await health();

    const left = await server.db.selectFrom('automation_runs').select(['status', 'ended_reason']).where('automation_id', '=', busy).execute();
    expect(left).toHaveLength(1500);
    expect(left.filter((r) => r.status !== 'EXITED' || r.ended_reason !== 'ended by deactivation')).toEqual([]);
    const page = await runsOf(t, busy);
    expect(page[0]).toMatchObject({ status: 'EXITED', ended_reason: 'ended by deactivation', current_step: null });

    // The plain deactivate of D15: no new runs, but those under way stay.
    const stopped = await t.call('POST', `/api/v1/automations/${kept}/deactivate`);
    expect(stopped.status, stopped.text).toBe(200);
    await waitForRuns(t, kept, (runs) => runs.length === 3 && runs.every((r) => r.current_step === 1));
    expect((await runsOf(t, kept)).every((r) => r.status === 'ACTIVE')).toBe(true);
    // Nothing the runner still held is written after the end.
    await runnerCaughtUp(t, await activeAutomation(t, { trigger: { type: 'EVENT', event: 'marker' }, steps: [tag('marked')] }), 1);
    const after = await server.db.selectFrom('automation_runs').select('status').where('automation_id', '=', busy).where('status', '!=', 'EXITED').execute();
    expect(after).toEqual([]);
  });
});
