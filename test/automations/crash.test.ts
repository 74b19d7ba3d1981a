import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { readJson } from '../../src/domain/shared/json.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { killLeftovers, spawnServer, type ServerProcess } from '../scale/helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

/**
 * D15 durability: real `sendwell serve` processes run automation runs and are SIGKILLed at the
 * moment the SMTP server takes in a message (the worst moment: a SEND_EMAIL handed over, not yet
 * recorded), several times, then restarted until every run has ended. Afterwards:
 *   - every run COMPLETED with exactly one step-log row per step (no step lost, none twice);
 *   - the non-idempotent UPDATE_LEAD_SCORE moved each score exactly once;
 *   - every contact got each mail, and a mail came twice only where its step log says it was
 *     handed over again after a crash (SENDING found in flight): copies <= attempts, and the
 *     extra copies are at most kills x SEND_CONCURRENCY.
 */

const CONTACTS = 120;
const CONCURRENCY = 4;
const KILLS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('D15 crash safety: SIGKILL during automation runs', () => {
  let server: TestServer;
  let sink: SmtpSink;
  let key: string;
  let automationId: number;
  let listId: number;
  const emails = Array.from({ length: CONTACTS }, (_, i) => `flow-${String(i).padStart(3, '0')}@example.test`);

  beforeAll(async () => {
    server = await startTestServer();
    sink = await startSmtpSink();
    const account = await server.createAccountWithKey();
    key = account.key;
    listId = (await server.request('POST', '/api/v1/lists', { key, body: { name: 'flow list' } })).body.data.id;
    const mail = (subject: string) => ({ type: 'SEND_EMAIL', subject, from_email: 'flow@sender.test', html: '<p>Hi {{ email }}</p>' });
    const created = await server.request('POST', '/api/v1/automations', {
      key,
      body: {
        name: 'crash flow',
        trigger: { type: 'EVENT', event: 'start' },
        steps: [
          { type: 'ADD_TAG', tag: 'entered' },
          mail('one'),
          { type: 'UPDATE_LEAD_SCORE', delta: 1 },
          { type: 'ADD_TO_LIST', list_id: listId },
          mail('two'),
          { type: 'UPDATE_LEAD_SCORE', delta: 10 },
          { type: 'ADD_TAG', tag: 'done' },
        ],
      },
    });
    expect(created.status).toBe(200);
    automationId = created.body.data.id;
    expect((await server.request('POST', `/api/v1/automations/${automationId}/activate`, { key })).status).toBe(200);
    // The runs start from events, through the API; the in-process server runs no runner.
    // Subscribers first: a contact an event creates waits for consent and is mailed nothing (issue 30 item 6).
    for (const email of emails) expect((await server.request('POST', '/api/v1/contacts', { key, body: { email } })).status).toBe(200);
    for (const email of emails) expect((await server.request('POST', '/v1/events', { key, body: { email, event: 'start' } })).status).toBe(202);
  });

  afterAll(async () => {
    await killLeftovers();
    await sink?.close();
    await server?.close();
  });

  it(`loses no step, repeats none, and mails twice only what was in flight at one of ${KILLS} SIGKILLs`, async () => {
    const timeline: string[] = [];
    const t0 = Date.now();
    const mark = (what: string) => timeline.push(`  ${Date.now() - t0} ms: ${what} (${sink.messages.length} received)`);
    onTestFinished(() => console.log(`automation crash test\n${timeline.join('\n')}`));
    const spawn = () =>
      spawnServer(server.env, {
        SMTP_URL: sink.url,
        SEND_CONCURRENCY: String(CONCURRENCY),
        SEND_BATCH_SIZE: '20',
        SEND_LEASE_MS: '1500',
        SEND_POLL_MS: '50',
        SEND_RETRY_BASE_MS: '50',
      });
    const activeRuns = async () =>
      Number(
        (
          await server.db
            .selectFrom('automation_runs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('automation_id', '=', automationId)
            .where('status', '=', 'ACTIVE')
            .executeTakeFirstOrThrow()
        ).n,
      );

    let proc: ServerProcess;
    for (let i = 0; i < KILLS; i++) {
      proc = await spawn();
      mark('spawned');
      await sink.waitFor(sink.messages.length + 15 + i * 7, 30_000);
      const exit = await proc.kill();
      expect(exit, proc.output()).toEqual({ code: null, signal: 'SIGKILL' });
      mark('SIGKILL at SMTP receipt');
    }
    expect(await activeRuns()).toBeGreaterThan(0);

    proc = await spawn();
    mark('spawned the last process');
    const deadline = Date.now() + 60_000;
    while ((await activeRuns()) > 0 && Date.now() < deadline) await sleep(100);
    mark('all runs ended');
    expect(await activeRuns(), proc.output()).toBe(0);
    expect(await proc.stop()).toEqual({ code: 0, signal: null });

    const runs = await server.db.selectFrom('automation_runs').selectAll().where('automation_id', '=', automationId).execute();
    expect(runs).toHaveLength(CONTACTS);
    expect(runs.every((r) => r.status === 'COMPLETED')).toBe(true);
    const steps = await server.db
      .selectFrom('automation_run_steps')
      .innerJoin('automation_runs', 'automation_runs.id', 'automation_run_steps.run_id')
      .innerJoin('contacts', 'contacts.id', 'automation_runs.contact_id')
      .select(['contacts.email', 'automation_run_steps.step_index', 'automation_run_steps.type', 'automation_run_steps.status', 'automation_run_steps.attempts'])
      .where('automation_runs.automation_id', '=', automationId)
      .execute();
    expect(steps).toHaveLength(CONTACTS * 7);
    for (const email of emails) {
      const own = steps.filter((s) => s.email === email).sort((a, b) => a.step_index - b.step_index);
      expect(own.map((s) => s.step_index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(own.every((s) => s.status === 'DONE' || s.status === 'SENT')).toBe(true);
    }

    const contacts = await server.db.selectFrom('contacts').select(['email', 'lead_score', 'tags']).where('email', 'in', emails).execute();
    for (const c of contacts) {
      expect(c.lead_score, c.email).toBe(11);
      expect(readJson(c.tags, null)).toEqual(['entered', 'done']);
    }
    const members = await server.db.selectFrom('list_members').select((eb) => eb.fn.countAll<number>().as('n')).where('list_id', '=', listId).executeTakeFirstOrThrow();
    expect(Number(members.n)).toBe(CONTACTS);
    const list = await server.db.selectFrom('lists').select('contact_count').where('id', '=', listId).executeTakeFirstOrThrow();
    expect(Number(list.contact_count)).toBe(CONTACTS);

    let extra = 0;
    for (const email of emails) {
      for (const [subject, stepIndex] of [
        ['one', 1],
        ['two', 4],
      ] as const) {
        const copies = sink.to(email).filter((m) => m.subject === subject);
        const attempts = steps.find((s) => s.email === email && s.step_index === stepIndex)!.attempts;
        expect(copies.length, `${email} ${subject}`).toBeGreaterThanOrEqual(1);
        expect(copies.length, `${email} ${subject}`).toBeLessThanOrEqual(attempts);
        // every copy of one message carries the same Message-ID
        expect(new Set(copies.map((m) => m.messageId)).size).toBe(1);
        extra += copies.length - 1;
      }
    }
    mark(`done: ${extra} extra copies (bound ${KILLS * CONCURRENCY})`);
    expect(extra).toBeLessThanOrEqual(KILLS * CONCURRENCY);
  }, 180_000);
});
