/**
 * Issue 28 H3: automation fan-out was unbounded and runs were claimed oldest first across
 * accounts. Workflows that each add the next one's trigger tag never meet the loop rule (no
 * workflow repeats in a chain), and one account's import of 1,000 contacts held another
 * account's one-step workflow back until all of them were done. Budgets per account (runs and
 * steps per hour, descendants per outside event, active workflows) end the work with the reason
 * on record, and the runner claims a few due runs of each account per claim, round robin.
 * Against a real server, on SQLite and on PostgreSQL; order and counts are asserted, no times.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ACTIVE_WORKFLOWS_MESSAGE,
  AUTOMATION_BUDGETS,
  FANOUT_REASON,
  hourOf,
  RUNS_PER_HOUR_REASON,
  STEPS_PER_HOUR_REASON,
} from '../../src/domain/automations/automation-definition.ts';
import { activeAutomation, runsOf, waitForRuns, type Run } from '../automations/helpers.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, tenant, type Tenant } from '../sending/send-helpers.ts';

const CHAIN = 25;
const CONTACTS = 10;
const BACKLOG = 1000;

const tag = (name: string) => ({ type: 'ADD_TAG', tag: name });

async function importContacts(server: TestServer, t: Tenant, contacts: Record<string, unknown>[]): Promise<void> {
  const res = await server.request('POST', '/v1/contacts/bulk', { key: t.key, body: { contacts } });
  expect(res.status, res.text).toBe(200);
}

/** The account's runs as rows read back: workflow, status, reason and when each finished. */
function runRows(server: TestServer, accountId: number) {
  return server.db.selectFrom('automation_runs').select(['automation_id', 'status', 'ended_reason', 'finished_at']).where('account_id', '=', accountId).execute();
}

/** Polls until the account has no ACTIVE run left. */
async function allRunsEnded(server: TestServer, accountId: number, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await runRows(server, accountId);
    if (rows.length > 0 && rows.every((r) => r.status !== 'ACTIVE')) return rows;
    if (Date.now() > deadline) throw new Error(`runs still ACTIVE: ${rows.filter((r) => r.status === 'ACTIVE').length} of ${rows.length}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sets the account's counts for this clock hour, as an hour of its workflows' work would have. */
async function spentThisHour(server: TestServer, accountId: number, used: { runs_started?: number; steps_run?: number }): Promise<void> {
  // Not across the top of the hour: the counts would belong to the hour that just ended.
  const msToNextHour = 3_600_000 - (Date.now() % 3_600_000);
  if (msToNextHour < 10_000) await new Promise((r) => setTimeout(r, msToNextHour + 100));
  await server.db
    .insertInto('automation_usage')
    .values({ account_id: accountId, hour: hourOf(new Date().toISOString()), runs_started: used.runs_started ?? 0, steps_run: used.steps_run ?? 0 })
    .execute();
}

describe('H3: fan-out through workflows is budgeted per outside event, runs and steps per account and hour', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ...FAST_SENDING });
    server.sender.automationRunner.start();
  });
  afterAll(() => server?.close());

  it(`H3: ${CHAIN} workflows each adding the next one's trigger tag start ${AUTOMATION_BUDGETS.descendantsPerOrigin} runs per outside event, and the run past it is EXITED with the reason`, { timeout: 180_000 }, async () => {
    const t = await tenant(server);
    const warn = vi.spyOn(server.core.logger, 'warn');
    const chain: number[] = [];
    for (let i = 0; i < CHAIN; i++) chain.push(await activeAutomation(t, { name: `chain ${i}`, trigger: { type: 'TAG_ADDED', tag: `c${i}` }, steps: [tag(`c${i + 1}`)] }));
    await importContacts(
      server,
      t,
      Array.from({ length: CONTACTS }, (_, i) => ({ email: `fan${i}@example.org`, tags: ['c0'] })),
    );

    const rows = await allRunsEnded(server, t.accountId);
    const budget = AUTOMATION_BUDGETS.descendantsPerOrigin;
    // Each contact's import row is one outside event: its root run and `budget` descendants.
    expect(rows.length).toBe(CONTACTS * (1 + budget));
    const runsOfStep = (i: number) => rows.filter((r) => r.automation_id === chain[i]);
    for (let i = 0; i <= budget; i++) expect(runsOfStep(i).length, `runs of workflow ${i}`).toBe(CONTACTS);
    for (let i = budget + 1; i < CHAIN; i++) expect(runsOfStep(i).length, `runs of workflow ${i}`).toBe(0);
    // The run whose step would have started one more is EXITED with the reason; every other completed.
    expect(runsOfStep(budget).every((r) => r.status === 'EXITED' && r.ended_reason === FANOUT_REASON)).toBe(true);
    expect(rows.filter((r) => r.ended_reason === FANOUT_REASON)).toHaveLength(CONTACTS);
    expect(rows.filter((r) => r.status === 'COMPLETED')).toHaveLength(CONTACTS * budget);

    // Readable through the runs list, with the step that did its change.
    const [last] = await runsOf(t, chain[budget]);
    expect(last).toMatchObject({ status: 'EXITED', ended_reason: FANOUT_REASON, current_step: null });
    expect(last.history.map((s: Run) => [s.type, s.status])).toEqual([['ADD_TAG', 'DONE']]);
    // The step's own change stays made; nothing followed it.
    const contact = await t.getContact('fan0@example.org');
    expect(contact.tags).toContain(`c${budget + 1}`);
    expect(contact.tags).not.toContain(`c${budget + 2}`);

    // A warn line for each, with ids and no personal data.
    const lines = warn.mock.calls.filter(([obj]) => (obj as Record<string, unknown>)?.budget === 'descendantsPerOrigin' && (obj as Record<string, unknown>).account === t.accountId);
    expect(lines).toHaveLength(CONTACTS);
    expect(JSON.stringify(lines)).not.toContain('@example.org');
    warn.mockRestore();
  });

  it('H3: past the runs-per-hour budget, each workflow a change would start gets one run EXITED with the reason and the rest are not written', async () => {
    const t = await tenant(server);
    const welcome = await activeAutomation(t, { name: 'welcome', trigger: { type: 'TAG_ADDED', tag: 'new' }, steps: [tag('welcomed')] });
    const other = await activeAutomation(t, { name: 'other', trigger: { type: 'TAG_ADDED', tag: 'new' }, steps: [tag('seen')] });
    await spentThisHour(server, t.accountId, { runs_started: AUTOMATION_BUDGETS.runsPerHour - 3 });
    await importContacts(
      server,
      t,
      Array.from({ length: 5 }, (_, i) => ({ email: `hour${i}@example.org`, tags: ['new'] })),
    );
    const rows = await allRunsEnded(server, t.accountId, 30_000);
    // 10 matches: 3 places left, then one EXITED run for each workflow; 5 not written.
    expect(rows.filter((r) => r.status === 'COMPLETED')).toHaveLength(3);
    const refused = rows.filter((r) => r.ended_reason === RUNS_PER_HOUR_REASON);
    expect(refused.map((r) => r.automation_id).sort()).toEqual([welcome, other].sort());
    expect(refused.every((r) => r.status === 'EXITED')).toBe(true);
    expect(rows).toHaveLength(5);
    const listed = [...(await runsOf(t, welcome)), ...(await runsOf(t, other))];
    expect(listed.filter((r) => r.ended_reason === RUNS_PER_HOUR_REASON)).toHaveLength(2);
  });

  it('H3: past the steps-per-hour budget, a run ends EXITED with the reason instead of running its next step', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { name: 'three steps', trigger: { type: 'TAG_ADDED', tag: 'go' }, steps: [tag('one'), tag('two'), tag('three')] });
    await spentThisHour(server, t.accountId, { steps_run: AUTOMATION_BUDGETS.stepsPerHour - 1 });
    await t.contact({ email: 'steps@example.org', tags: ['go'] });
    const [run] = await waitForRuns(t, id, (runs) => runs.length === 1 && runs[0].status !== 'ACTIVE');
    expect(run).toMatchObject({ status: 'EXITED', ended_reason: STEPS_PER_HOUR_REASON });
    expect(run.history.map((s: Run) => [s.type, s.status])).toEqual([['ADD_TAG', 'DONE']]);
    expect((await t.getContact('steps@example.org')).tags.sort()).toEqual(['go', 'one']);
  });

  it(`H3: an account may have ${AUTOMATION_BUDGETS.activeWorkflows} active workflows; activating one more is 409 naming the limit`, { timeout: 120_000 }, async () => {
    const t = await tenant(server);
    let first = 0;
    for (let i = 0; i < AUTOMATION_BUDGETS.activeWorkflows; i++) {
      const id = await activeAutomation(t, { name: `wf ${i}`, trigger: { type: 'EVENT', event: `e${i}` }, steps: [tag('x')] });
      first ||= id;
    }
    const created = await t.call('POST', '/api/v1/automations', { name: 'one more', trigger: { type: 'EVENT', event: 'more' }, steps: [tag('x')] });
    expect(created.status, created.text).toBe(200);
    const refused = await t.call('POST', `/api/v1/automations/${created.body.data.id}/activate`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({ code: 'INVALID_STATE', message: ACTIVE_WORKFLOWS_MESSAGE });
    expect((await t.call('GET', `/api/v1/automations/${created.body.data.id}`)).body.data.is_active).toBe(false);
    // Activating one that is already active is still idempotent; after a deactivation there is room.
    expect((await t.call('POST', `/api/v1/automations/${first}/activate`)).status).toBe(200);
    expect((await t.call('POST', `/api/v1/automations/${first}/deactivate`)).status).toBe(200);
    expect((await t.call('POST', `/api/v1/automations/${created.body.data.id}/activate`)).status).toBe(200);
  });
});

describe('H3: runs are claimed round robin across accounts', () => {
  let server: TestServer;
  // The runner starts once both accounts' runs are due, so the order is the claim's alone.
  beforeAll(async () => {
    server = await startTestServer({ ...FAST_SENDING });
  });
  afterAll(() => server?.close());

  it(`H3: another account's one-step workflow finishes before most of ${BACKLOG} runs one account's import started`, { timeout: 180_000 }, async () => {
    const a = await tenant(server);
    const b = await tenant(server);
    await activeAutomation(a, {
      name: 'import flow',
      trigger: { type: 'CONTACT_CREATED' },
      steps: [tag('seen'), { type: 'UPDATE_LEAD_SCORE', delta: 1 }, { type: 'REMOVE_TAG', tag: 'seen' }],
    });
    const small = await activeAutomation(b, { name: 'one step', trigger: { type: 'TAG_ADDED', tag: 'vip' }, steps: [tag('welcomed')] });
    await importContacts(
      server,
      a,
      Array.from({ length: BACKLOG }, (_, i) => ({ email: `bulk${i}@example.org` })),
    );
    await b.contact({ email: 'vip@example.org', tags: ['vip'] });

    server.sender.automationRunner.start();
    const aRuns = await allRunsEnded(server, a.accountId);
    const [bRun] = await allRunsEnded(server, b.accountId);
    expect(aRuns).toHaveLength(BACKLOG);
    expect(aRuns.every((r) => r.status === 'COMPLETED')).toBe(true);
    expect(bRun).toMatchObject({ automation_id: small, status: 'COMPLETED' });

    // Oldest first across accounts, B's run came after all of A's; round robin, in the first claims.
    const finished = (r: { finished_at: unknown }) => new Date(r.finished_at as string).getTime();
    const aAfterB = aRuns.filter((r) => finished(r) > finished(bRun)).length;
    expect(aAfterB, `A's runs that finished after B's: ${aAfterB} of ${BACKLOG}`).toBeGreaterThan(BACKLOG / 2);
  });
});
