/**
 * Issue 14 H1: better-sqlite3 answers synchronously, so the automation runner's every await
 * resolved as a microtask and a backlog of due runs held the event loop until it was done: HTTP
 * (and SIGTERM's handler) got no turn. Against a real `sendwell serve` process working through a
 * backlog of a few thousand due runs, /health must answer all along, and SIGTERM must stop it in
 * the middle. No timings are asserted: health answers must interleave with the runner's progress.
 * Runs on SQLite and on PostgreSQL.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { httpRequest, killLeftovers, spawnServer } from '../scale/helpers.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';
import { activeAutomation } from './helpers.ts';

const BACKLOG = 2000;
const IMPORT_CHUNK = 1000;

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  // The harness server runs no runner: the backlog waits for the spawned process.
  server = await startTestServer();
  t = await tenant(server);
});
afterAll(async () => {
  await killLeftovers();
  await server?.close();
});

/** A workflow and BACKLOG due runs of it, made through the API before any runner is up. */
async function backlog(label: string): Promise<number> {
  const id = await activeAutomation(t, {
    trigger: { type: 'TAG_ADDED', tag: label },
    steps: [
      { type: 'ADD_TAG', tag: `${label}-seen` },
      { type: 'UPDATE_LEAD_SCORE', delta: 1 },
      { type: 'REMOVE_TAG', tag: `${label}-seen` },
    ],
  });
  for (let i = 0; i < BACKLOG; i += IMPORT_CHUNK) {
    const contacts = Array.from({ length: IMPORT_CHUNK }, (_, j) => ({ email: `${label}-${i + j}@example.org`, tags: [label] }));
    const res = await server.request('POST', '/v1/contacts/bulk', { key: t.key, body: { contacts } });
    expect(res.status, res.text).toBe(200);
  }
  return id;
}

async function runsBy(automationId: number, status: string): Promise<number> {
  const row = await server.db
    .selectFrom('automation_runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('automation_id', '=', automationId)
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('H1: the automation runner gives HTTP its turn while it works through a backlog', () => {
  it(`/health answers all along while a real server runs ${BACKLOG} due runs, interleaved with their progress`, { timeout: 180_000 }, async () => {
    const id = await backlog('h1-health');
    expect(await runsBy(id, 'ACTIVE')).toBe(BACKLOG);

    const proc = await spawnServer(server.env);
    // A new connection per request, so the stop below has no kept-alive connection to wait for.
    const agent = new http.Agent({ keepAlive: false });
    /** COMPLETED runs read right after each /health answer */
    const progress: number[] = [];
    const deadline = Date.now() + 150_000;
    for (;;) {
      const res = await httpRequest(proc.url, 'GET', '/health', { agent });
      expect(res.status, proc.output().slice(-2000)).toBe(200);
      const completed = await runsBy(id, 'COMPLETED');
      progress.push(completed);
      if (completed === BACKLOG) break;
      if (Date.now() > deadline) throw new Error(`the backlog was not done in time: ${completed} of ${BACKLOG} runs completed`);
    }
    expect((await proc.stop()).code).toBe(0);

    // Answers that came while the backlog was under way, and how often the runner had moved on
    // between two of them. A runner that holds the event loop makes the first answer wait for the
    // whole backlog: none would be under way.
    const duringBacklog = progress.filter((n) => n < BACKLOG);
    const movedOn = progress.filter((n, i) => i > 0 && n > progress[i - 1] && n < BACKLOG);
    expect(duringBacklog.length, `completed runs at each answer: ${progress.join(' ')}`).toBeGreaterThanOrEqual(10);
    expect(movedOn.length, `completed runs at each answer: ${progress.join(' ')}`).toBeGreaterThanOrEqual(5);
    expect(await runsBy(id, 'ACTIVE')).toBe(0);
  });

  it('SIGTERM stops the process in the middle of a backlog: it exits 0, the runs it had not started stay due and unclaimed', { timeout: 180_000 }, async () => {
    const id = await backlog('h1-sigterm');
    const proc = await spawnServer(server.env);
    const deadline = Date.now() + 60_000;
    while ((await runsBy(id, 'COMPLETED')) === 0) {
      if (Date.now() > deadline) throw new Error(`no run completed: ${proc.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const exit = await proc.stop();
    expect(exit, proc.output().slice(-2000)).toEqual({ code: 0, signal: null });

    // A runner that never let the signal handler run would have finished the backlog first.
    const left = await server.db.selectFrom('automation_runs').select(['step_index', 'lease_until']).where('automation_id', '=', id).where('status', '=', 'ACTIVE').execute();
    expect(left.length).toBeGreaterThan(0);
    // What was claimed but not run went back: the next runner takes it at once.
    expect(left.filter((r) => r.lease_until !== null)).toEqual([]);
  });
});
