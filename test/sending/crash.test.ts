import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { nowIso } from '../../src/domain/shared/time.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { httpRequest, killLeftovers, spawnServer, type ServerProcess } from '../scale/helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from './smtp-sink.ts';

/**
 * Issue 4, item 4: crash safety. Real `sendwell serve` processes send a campaign to a real SMTP
 * server and are killed with SIGKILL at random points of the send, then restarted, until the
 * campaign is SENT. What the SMTP server received must then show:
 *   - no recipient missing;
 *   - duplicates (extra copies) at most kills x SEND_CONCURRENCY: only a message in flight at a
 *     kill may go out twice, and every copy of it carries the same Message-ID;
 *   - the campaign SENT (D13), its statistics equal to the SMTP server's counts, every row SENT.
 * One kill lands right after POST /send returned (audience snapshotted, nothing sent); the others
 * at the moment the SMTP server takes in a message (sometimes a few ms later), when at least that
 * message is sent but not yet recorded: the worst moment for a sender that records after the fact.
 * Each process life sends to an SMTP server of its own, so every copy received is known to come
 * from the process that sent it: the in-flight bound is checked per killed process too.
 * The kill points are random; the seed is logged and CRASH_SEED=<n> replays them.
 *
 * D23: the same again with two mail servers per process life (SMTP_URL holding both), one of them
 * going away mid-send in one life before that process is killed: the same rule holds, since a
 * message whose server failed went to the other one within the same process.
 */

const RECIPIENTS = 600;
const CONCURRENCY = 4;
/** kills at SMTP receipt: each after 30-80 further messages, so all of them land before the end */
const RECEIPT_KILLS = 5;

const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** mulberry32: a small seeded PRNG, so a failing run can be replayed */
function prng(s: number): () => number {
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(seed);
const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const recipientOf = (m: ReceivedMessage) => m.envelope.to[0];
const distinctRecipients = (messages: ReceivedMessage[]) => new Set(messages.map(recipientOf)).size;

describe('crash safety: SIGKILL during a send (issue 4 item 4, D13)', () => {
  let server: TestServer;
  /** every SMTP server started, to close at the end (each process life has servers of its own) */
  const sinks: SmtpSink[] = [];
  let key: string;
  let audienceListId: number;
  let emails: string[];

  beforeAll(async () => {
    server = await startTestServer();
    const account = await server.createAccountWithKey();
    key = account.key;

    const list = await server.request('POST', '/api/v1/lists', { key, body: { name: 'crash audience' } });
    expect(list.status).toBe(200);
    const listId = list.body.data.id as number;

    // The audience is seeded straight into the tables: the API is not what is under test here.
    const now = nowIso();
    emails = Array.from({ length: RECIPIENTS }, (_, i) => `crash-${String(i).padStart(4, '0')}@example.test`);
    for (let i = 0; i < RECIPIENTS; i += 100) {
      const ids = await server.db
        .insertInto('contacts')
        .values(
          emails.slice(i, i + 100).map((email, j) => ({
            account_id: account.accountId,
            email,
            first_name: `Reader${i + j}`,
            tags: '[]',
            custom_fields: '{}',
            status: 'SUBSCRIBED',
            created_at: now,
            updated_at: now,
          })),
        )
        .returning('id')
        .execute();
      await server.db
        .insertInto('list_members')
        .values(ids.map(({ id }) => ({ list_id: listId, contact_id: id, created_at: now })))
        .execute();
    }
    await server.db.updateTable('lists').set({ contact_count: RECIPIENTS }).where('id', '=', listId).execute();

    audienceListId = listId;
  });

  afterAll(async () => {
    await killLeftovers();
    await Promise.all(sinks.map((sink) => sink.close()));
    await server?.close();
  });

  /** resolves once the servers of one life have received `n` messages in all */
  async function waitForReceived(life: SmtpSink[], n: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (life.reduce((sum, sink) => sum + sink.messages.length, 0) < n) {
      if (Date.now() > deadline) throw new Error(`the mail servers of a process life got fewer than ${n} messages within 20 s`);
      await sleep(5);
    }
  }

  /** One crash run: `servers` mail servers per process life (D23 when 2). */
  async function crashCase(servers: number) {
    const campaign = await server.request('POST', '/api/v1/campaigns', {
      key,
      body: {
        name: `crash test, ${servers} server(s) per life`,
        subject: 'Hello {{first_name}}',
        from_name: 'Sendwell',
        from_email: 'news@sender.test',
        html: '<p>Hi {{first_name}}, <a href="https://example.test/read">read on</a>.</p>',
        list_ids: [audienceListId],
      },
    });
    expect(campaign.status).toBe(200);
    expect(campaign.body.data.status).toBe('DRAFT');
    const campaignId = campaign.body.data.id as number;
    /** each process life's mail servers (one or two) */
    const lives: SmtpSink[][] = [];
    const received = () => lives.flat().flatMap((sink) => sink.messages);
    const receivedInLife = (life: SmtpSink[]) => life.flatMap((sink) => sink.messages);
    /** a new process on new SMTP servers */
    const spawn = async () => {
      const life = await Promise.all(Array.from({ length: servers }, () => startSmtpSink()));
      lives.push(life);
      sinks.push(...life);
      const proc = await spawnServer(server.env, {
        SMTP_URL: life.map((sink) => sink.url).join(' '),
        SEND_CONCURRENCY: String(CONCURRENCY),
        SEND_BATCH_SIZE: '20',
        // rows held by a killed process come back quickly
        SEND_LEASE_MS: '1500',
        SEND_POLL_MS: '50',
        SEND_RETRY_BASE_MS: '50',
      });
      return { proc, life };
    };
    // No kept-alive connections, so the clean stop at the end has nothing to drain.
    const agent = new http.Agent({ keepAlive: false });
    const kills: { at: string; distinct: number }[] = [];
    const t0 = Date.now();
    // What happened when, printed once at the end (also when the test fails half-way).
    const timeline: string[] = [];
    const mark = (what: string) => timeline.push(`  ${Date.now() - t0} ms: ${what} (${received().length} received, ${distinctRecipients(received())} distinct)`);
    onTestFinished(() => console.log(`crash test seed ${seed} (CRASH_SEED=${seed} replays the kill points)\n${timeline.join('\n')}`));
    const kill = async (proc: ServerProcess, at: string) => {
      const exit = await proc.kill();
      // It died of the kill, not of something else before it.
      expect(exit, proc.output()).toEqual({ code: null, signal: 'SIGKILL' });
      mark(`SIGKILL ${at}`);
      kills.push({ at, distinct: distinctRecipients(received()) });
    };
    const recipientRows = async () =>
      Number(
        (
          await server.db
            .selectFrom('campaign_recipients')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('campaign_id', '=', campaignId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const getCampaign = async (proc: ServerProcess) => {
      const res = await httpRequest(proc.url, 'GET', `/api/v1/campaigns/${campaignId}`, { key, agent });
      expect(res.status).toBe(200);
      return res.body.data as { status: string; total_recipients: number; sent_at: string | null };
    };

    // A kill right after the send started: the snapshot is committed, (next to) nothing is sent yet.
    let { proc } = await spawn();
    mark('spawned');
    const sent = await httpRequest(proc.url, 'POST', `/api/v1/campaigns/${campaignId}/send`, { key, agent });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ status: 'SENDING', total_recipients: RECIPIENTS });
    await kill(proc, 'right after /send returned');
    expect(await recipientRows()).toBe(RECIPIENTS);

    // Kills at SMTP receipt, after a random number of messages, some with a small random delay.
    for (let i = 0; i < RECEIPT_KILLS; i++) {
      const spawned = await spawn();
      proc = spawned.proc;
      mark('spawned');
      await waitForReceived(spawned.life, between(30, 80));
      if (servers > 1 && i === 1) {
        // D23: one of this life's two mail servers goes away mid-send; the other takes the rest, then the process is killed.
        const [gone, left] = random() < 0.5 ? spawned.life : [...spawned.life].reverse();
        await gone.close();
        mark('closed one of the two mail servers');
        await left.waitFor(left.messages.length + between(20, 40), 20_000);
      }
      if (random() < 0.5) await sleep(between(1, 20));
      await kill(proc, 'at SMTP receipt');
      // Each of these landed mid-send: some recipients were still unmailed.
      expect(kills.at(-1)!.distinct).toBeLessThan(RECIPIENTS);
    }

    // The last process runs the campaign to its end (rows of the killed one come back after their lease).
    proc = (await spawn()).proc;
    mark('spawned the last process');
    const deadline = Date.now() + 30_000;
    let finished = await getCampaign(proc);
    while (finished.status !== 'SENT' && Date.now() < deadline) {
      await sleep(100);
      finished = await getCampaign(proc);
    }
    mark('SENT');
    expect(finished.status, proc.output()).toBe('SENT');
    expect(await proc.stop()).toEqual({ code: 0, signal: null });

    const messages = received();
    const duplicates = messages.length - distinctRecipients(messages);
    mark(`done: ${kills.length} kills, ${messages.length} messages for ${RECIPIENTS} recipients, ${duplicates} duplicate(s) (bound ${kills.length * CONCURRENCY})`);
    expect(kills.length).toBeGreaterThanOrEqual(5);
    expect(lives).toHaveLength(kills.length + 1);

    // No recipient is missing, and nobody outside the audience was mailed.
    const byRecipient = new Map<string, ReceivedMessage[]>();
    /** for each recipient, the process lives its copies came from, in order */
    const livesOf = new Map<string, number[]>();
    lives.forEach((sinksOfLife, life) => {
      for (const m of receivedInLife(sinksOfLife)) {
        expect(m.envelope.to).toHaveLength(1);
        byRecipient.set(recipientOf(m), [...(byRecipient.get(recipientOf(m)) ?? []), m]);
        livesOf.set(recipientOf(m), [...(livesOf.get(recipientOf(m)) ?? []), life]);
      }
    });
    expect([...byRecipient.keys()].sort()).toEqual(emails);

    // Duplicates only for messages in flight at a kill: at most kills x concurrency extra copies in all,
    // and per killed process at most `concurrency` of its messages went out again later. A process never
    // mails a recipient twice itself, and the process that was not killed mailed nobody again.
    expect(duplicates).toBeLessThanOrEqual(kills.length * CONCURRENCY);
    const sentAgainAfterLife = lives.map(() => 0);
    for (const [email, seen] of livesOf) {
      expect(new Set(seen).size, `${email} was mailed twice by one process (lives ${seen.join(', ')})`).toBe(seen.length);
      for (const life of seen.slice(0, -1)) sentAgainAfterLife[life]++;
    }
    mark(`mailed again after each life: ${sentAgainAfterLife.join(', ')}`);
    expect(Math.max(...sentAgainAfterLife)).toBeLessThanOrEqual(CONCURRENCY);
    expect(sentAgainAfterLife.at(-1)).toBe(0);

    // Every copy to a recipient is the same message: one Message-ID per recipient, one recipient per Message-ID,
    // and it is the one recorded on the recipient's row.
    const rows = await server.db
      .selectFrom('campaign_recipients')
      .select(['id', 'email', 'status', 'sent_at', 'message_id', 'claimed_until'])
      .where('campaign_id', '=', campaignId)
      .execute();
    expect(rows).toHaveLength(RECIPIENTS);
    const rowByEmail = new Map(rows.map((r) => [r.email, r]));
    const messageIds = new Set<string>();
    for (const [email, copies] of byRecipient) {
      const ids = new Set(copies.map((m) => m.messageId));
      expect(ids.size, `copies to ${email} carry different Message-IDs`).toBe(1);
      const [messageId] = ids;
      const row = rowByEmail.get(email)!;
      expect(messageId).toMatch(new RegExp(`^<c${campaignId}\\.r${row.id}\\.[A-Za-z0-9_-]+@sender\\.test>$`));
      expect(row.message_id).toBe(messageId);
      messageIds.add(messageId!);
    }
    expect(messageIds.size).toBe(RECIPIENTS);

    // Every row is final and SENT, none still claimed.
    expect(rows.filter((r) => r.status !== 'SENT' || r.sent_at === null || r.claimed_until !== null)).toEqual([]);

    // The campaign is SENT with sent_at, and its statistics equal what the SMTP server counted.
    const ended = await server.request('GET', `/api/v1/campaigns/${campaignId}`, { key });
    expect(ended.status).toBe(200);
    expect(ended.body.data).toMatchObject({ status: 'SENT', total_recipients: RECIPIENTS, error: null });
    expect(ended.body.data.sent_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    const stats = await server.request('GET', `/api/v1/campaigns/${campaignId}/statistics`, { key });
    expect(stats.status).toBe(200);
    expect(stats.body.data).toMatchObject({
      sent: byRecipient.size,
      delivered: byRecipient.size,
      bounced: 0,
      opened: 0,
      clicked: 0,
      complained: 0,
      unsubscribed: 0,
      bounce_rate: 0,
    });
    expect(stats.body.data.sent).toBe(RECIPIENTS);
  }

  it(`loses no recipient and mails at most kills x ${CONCURRENCY} twice across SIGKILLs, then ends SENT with matching statistics`, () => crashCase(1), 120_000);

  it('D23: the same with two mail servers per process, one of them gone mid-send', () => crashCase(2), 120_000);
});
