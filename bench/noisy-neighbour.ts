/**
 * Issue 28's noisy-neighbour benchmark: what account A's worst can do to account B.
 *
 * One `./bin/sendwell serve` on SQLite (operator defaults, LOG_LEVEL=info, mail to the dev inbox).
 * Account B does ordinary work, one operation after another in rounds: save a draft, preview it,
 * count a segment, send a test, list contacts, and run a one-step workflow (a contact created with
 * a tag; measured until the workflow's tag is on it). First B alone, then B while account A, in a
 * process of its own (bench/noisy-attacker.ts), does every expensive thing it can at once: the
 * worst content checks, the heaviest segment the server accepts, large MJML drafts saved in loops,
 * a flood of anonymous web views and archive-feed reads, an automation fan-out chain fed by bulk
 * imports, and sending-domain creation (an RSA key each). /health is probed throughout by
 * bench/health-poller.ts, a third process.
 *
 * Targets: B's p99 within 2x of B alone for each operation, /health p99 under 50 ms throughout,
 * and B's one-step workflow done within 5 s.
 *   npm run bench -- --only noisy-neighbour
 *   BENCH_NOISY_ROUNDS=20 (rounds of B's operations in each phase)
 */
import { cpus, loadavg } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AttackPlan } from './noisy-attacker.ts';
import type { BenchContext, BenchReport } from './lib/context.ts';
import { healthLatencyOf, startHealthProbe } from './lib/health-probe.ts';
import { freePort, startProcess, waitForHttp } from './lib/proc.ts';
import { table } from './lib/results.ts';
import { createBenchAccount, sendwellEnv } from './lib/seed.ts';

const ROUNDS = Number(process.env.BENCH_NOISY_ROUNDS ?? 20);
const TARGET_RATIO = 2;
/** Threads A may keep busy off the HTTP thread, each with one item of its own that cannot be preempted: a compile, a tenant read, a render, a DKIM key. */
const CONTROL_BURNERS = 4;
const TARGET_HEALTH_P99_MS = 50;
const TARGET_WORKFLOW_MS = 5_000;
const A_CONTACTS = 1_000;
const FANOUT_WORKFLOWS = 25;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loads = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const ms = (n: number) => (Number.isNaN(n) ? 'n/a' : n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US'));

interface Api {
  url: string;
  key: string;
}

async function call(api: Api, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(api.url + path, {
    method,
    headers: { 'x-api-key': api.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function ok(api: Api, method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(api, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json?.data ?? res.json;
}

/** A well-formed MJML email of about `kb` KB: the size of the drafts that held the compile thread in H1. */
function largeMjml(kb: number): string {
  const section = (i: number) =>
    `<mj-section><mj-column><mj-text font-size="16px" color="#333333">Paragraph ${i}: ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(3)}</mj-text></mj-column></mj-section>`;
  const parts: string[] = [];
  let size = 40;
  for (let i = 0; size < kb * 1024; i++) {
    parts.push(section(i));
    size += parts[i].length;
  }
  return `<mjml><mj-body>${parts.join('')}<mj-section><mj-column><mj-text><a href="{{ unsubscribe_url }}">Unsubscribe</a></mj-text></mj-column></mj-section></mj-body></mjml>`;
}

/** HTML that made the old content checks backtrack (C1): tags that never close, within the 256 KB limit. */
const hostileHtml = () => '<a href=x <img src=y '.repeat(12_000).slice(0, 250 * 1024);

/** The heaviest `contains` filter the server accepts (C2): the language's limits, or the server's caps if smaller. */
async function heaviestFilter(api: Api): Promise<{ filter: unknown; shape: string }> {
  for (const [conditions, termLength] of [
    [100, 1000],
    [50, 500],
    [20, 200],
    [20, 100],
    [10, 100],
    [5, 50],
  ]) {
    const filter = { all: Array.from({ length: conditions }, (_, i) => ({ field: 'email', op: 'contains', value: `${i}${'q'.repeat(termLength - String(i).length)}` })) };
    const res = await call(api, 'POST', '/api/v1/segments/preview', { filter });
    if (res.status === 200) return { filter, shape: `${conditions} \`contains\` conditions of ${termLength} characters` };
  }
  throw new Error('no contains filter was accepted');
}

async function prepareAttacker(api: Api, workDir: string): Promise<{ plan: AttackPlan; notes: string[] }> {
  const notes: string[] = [];
  const list = await ok(api, 'POST', '/api/v1/lists', { name: 'A readers' });
  for (let i = 0; i < A_CONTACTS; i += 500) {
    const contacts = Array.from({ length: 500 }, (_, j) => ({ email: `reader-${i + j}@a.bench`, firstName: `R${i + j}`, status: 'SUBSCRIBED' }));
    await ok(api, 'POST', '/v1/contacts/bulk', { listId: String(list.id), contacts });
  }
  // A sent, archived campaign: its web-view links and archive feed are what anyone can request.
  const sent = await ok(api, 'POST', '/api/v1/campaigns', {
    name: 'A sent',
    subject: 'Hello {{ first_name }}',
    from_email: 'news@a.bench',
    html: `<html><body><p><a href="{{ webview_url }}">View online</a></p>${'<p>Hello {{ first_name }}, this is the news. </p>'.repeat(200)}<a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>`,
    list_ids: [list.id],
    archive: true,
  });
  await ok(api, 'POST', `/api/v1/campaigns/${sent.id}/send`);
  for (let i = 0; ; i++) {
    const c = await ok(api, 'GET', `/api/v1/campaigns/${sent.id}`);
    if (c.status === 'SENT') {
      sent.archive_url = c.archive_url;
      break;
    }
    if (c.status === 'FAILED' || i > 600) throw new Error(`A's campaign did not send: ${c.status}`);
    await sleep(500);
  }
  const webviewUrls = new Set<string>();
  for (let page = 0; webviewUrls.size < 300 && page < 10; page++) {
    const inbox = await ok(api, 'GET', `/api/v1/dev/inbox?page=${page}&size=100`);
    if (inbox.messages.length === 0) break;
    for (const m of inbox.messages) {
      const link = /href="([^"]*\/w\/[^"]+)"/.exec(m.html ?? '')?.[1];
      if (link) webviewUrls.add(link.replace(/&amp;/g, '&'));
    }
  }
  if (webviewUrls.size === 0) throw new Error('no web-view link found in the dev inbox');
  notes.push(`${webviewUrls.size} distinct web-view links of A's sent campaign (${A_CONTACTS.toLocaleString('en-US')} recipients)`);

  const checks = await ok(api, 'POST', '/api/v1/campaigns', { name: 'A hostile', subject: 'x', from_email: 'news@a.bench', html: hostileHtml() });
  const { filter, shape } = await heaviestFilter(api);
  notes.push(`heaviest segment filter accepted: ${shape}, over ${A_CONTACTS.toLocaleString('en-US')} contacts`);

  const mjml = largeMjml(170);
  const draftBody = { html: mjml, format: 'mjml' };
  const drafts: number[] = [];
  for (let i = 0; i < 4; i++) drafts.push((await ok(api, 'POST', '/api/v1/campaigns', { name: `A draft ${i}`, subject: 'x', from_email: 'news@a.bench', ...draftBody })).id);
  notes.push(`4 loops saving a ${Math.round(mjml.length / 1024)} KB MJML draft`);

  // A chain of workflows, each adding the next one's trigger tag five times over (H3's fan-out).
  let made = 0;
  for (let i = 0; i < FANOUT_WORKFLOWS; i++) {
    const next = `fan-${i + 1}`;
    const steps = Array.from({ length: 5 }, () => [
      { type: 'ADD_TAG', tag: next },
      { type: 'REMOVE_TAG', tag: next },
    ]).flat();
    const created = await call(api, 'POST', '/api/v1/automations', { name: `fan ${i}`, trigger: { type: 'TAG_ADDED', tag: `fan-${i}` }, steps });
    if (created.status >= 300) break;
    const activated = await call(api, 'POST', `/api/v1/automations/${created.json.data.id}/activate`);
    if (activated.status >= 300) break;
    made++;
  }
  notes.push(`${made} of ${FANOUT_WORKFLOWS} chained workflows accepted and active (each adds the next one's trigger tag 5 times), fed by bulk imports of 200 contacts every 0.5 s`);

  const slugAndId = /\/archive\/([^/]+)\//.exec(sent.archive_url ?? '');
  if (!slugAndId) throw new Error(`A's campaign has no archive URL: ${sent.archive_url}`);
  const plan: AttackPlan = {
    url: api.url,
    key: api.key,
    checksCampaignId: checks.id,
    segmentFilter: filter,
    draftCampaignIds: drafts,
    draftBody,
    webviewUrls: [...webviewUrls],
    feedUrl: `${api.url}/archive/${slugAndId[1]}/feed.xml`,
    fanoutTag: 'fan-0',
    webviewLoops: 8,
  };
  writeFileSync(join(workDir, 'attack-plan.json'), JSON.stringify(plan));
  return { plan, notes };
}

interface Neighbour {
  campaignId: number;
  segmentFilter: unknown;
}

async function prepareNeighbour(api: Api): Promise<Neighbour> {
  const list = await ok(api, 'POST', '/api/v1/lists', { name: 'B readers' });
  await ok(api, 'POST', '/v1/contacts/bulk', { listId: String(list.id), contacts: Array.from({ length: 100 }, (_, i) => ({ email: `b-${i}@b.bench`, firstName: `B${i}`, status: 'SUBSCRIBED' })) });
  const campaign = await ok(api, 'POST', '/api/v1/campaigns', {
    name: 'B news',
    subject: 'B news for {{ first_name }}',
    from_email: 'news@b.bench',
    html: '<html><body><h1>Hi {{ first_name }}</h1><p>Our monthly news.</p><a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>',
    list_ids: [list.id],
  });
  const workflow = await ok(api, 'POST', '/api/v1/automations', { name: 'B welcome', trigger: { type: 'TAG_ADDED', tag: 'b-go' }, steps: [{ type: 'ADD_TAG', tag: 'b-done' }] });
  await ok(api, 'POST', `/api/v1/automations/${workflow.id}/activate`);
  return { campaignId: campaign.id, segmentFilter: { all: [{ field: 'email', op: 'ends_with', value: '@b.bench' }, { field: 'first_name', op: 'starts_with', value: 'B' }] } };
}

const OPERATIONS = ['save a draft', 'preview', 'segment count', 'test send', 'GET /contacts', 'one-step workflow'] as const;
type Operation = (typeof OPERATIONS)[number];

/** B's ordinary work, ROUNDS times; each operation's latency in ms (a failed answer counts as an error). */
async function neighbourRounds(api: Api, b: Neighbour, phase: string): Promise<{ samples: Record<Operation, number[]>; errors: string[] }> {
  const samples = Object.fromEntries(OPERATIONS.map((o) => [o, [] as number[]])) as Record<Operation, number[]>;
  const errors: string[] = [];
  const timed = async (op: Operation, method: string, path: string, body?: unknown) => {
    const started = performance.now();
    const res = await call(api, method, path, body);
    samples[op].push(performance.now() - started);
    if (res.status >= 300) errors.push(`${op}: ${res.status} ${JSON.stringify(res.json).slice(0, 200)}`);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await timed('save a draft', 'PUT', `/api/v1/campaigns/${b.campaignId}`, { html: `<html><body><h1>Hi {{ first_name }}</h1><p>Our monthly news, edit ${phase} ${round}.</p><a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>` });
    await timed('preview', 'POST', `/api/v1/campaigns/${b.campaignId}/preview`, {});
    await timed('segment count', 'POST', '/api/v1/segments/preview', { filter: b.segmentFilter });
    await timed('test send', 'POST', `/api/v1/campaigns/${b.campaignId}/test`, { emails: ['proof@b.bench'] });
    await timed('GET /contacts', 'GET', '/api/v1/contacts?size=20');
    // The workflow: from the create that adds the trigger tag until the step's tag is on the contact.
    const email = `wf-${phase}-${round}@b.bench`;
    const started = performance.now();
    await ok(api, 'POST', '/api/v1/contacts', { email, tags: ['b-go'] });
    for (;;) {
      const contact = await ok(api, 'GET', `/api/v1/contacts/${encodeURIComponent(email)}`);
      if (contact.tags.includes('b-done')) break;
      if (performance.now() - started > 120_000) {
        errors.push(`one-step workflow: not done after 120 s (${phase} round ${round})`);
        break;
      }
      await sleep(25);
    }
    samples['one-step workflow'].push(performance.now() - started);
  }
  return { samples, errors };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
};

export async function noisyNeighbourBench(ctx: BenchContext): Promise<BenchReport> {
  const date = new Date().toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
  const loadStart = loads();
  const dataDir = join(ctx.workDir, 'data');
  const env = sendwellEnv(dataDir);
  const a = await createBenchAccount(ctx.repoDir, env, 'Noisy A');
  const bAccount = await createBenchAccount(ctx.repoDir, env, 'Neighbour B');
  const port = await freePort();
  const serverEnv = { ...env, PORT: String(port), TRUST_PROXY: '127.0.0.1' };
  const logFile = join(ctx.workDir, 'serve.log');
  // --profile: the server under --cpu-prof (through node explicitly: --cpu-prof is refused in NODE_OPTIONS); its profiles stay in the work folder.
  const server = ctx.profile
    ? startProcess(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${join(ctx.workDir, 'profile')}`, 'bin/sendwell.mjs', 'serve'], { cwd: ctx.repoDir, env: serverEnv, logFile })
    : startProcess('./bin/sendwell', ['serve'], { cwd: ctx.repoDir, env: serverEnv, logFile });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, server);
    const apiA = { url, key: a.key };
    const apiB = { url, key: bAccount.key };
    ctx.log('preparing account A (contacts, a sent campaign, hostile content, workflows) and account B');
    const { plan, notes } = await prepareAttacker(apiA, ctx.workDir);
    const b = await prepareNeighbour(apiB);

    // The queue's floor: B's save may wait for the one compile of A's in progress (it cannot be
    // preempted), so what one of A's drafts costs alone bounds what fairness can give B.
    const draftSaves: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await ok(apiA, 'PUT', `/api/v1/campaigns/${plan.draftCampaignIds[0]}`, { ...plan.draftBody, html: (plan.draftBody.html as string).replace('Paragraph 0:', `Paragraph 0 (${i}):`) });
      draftSaves.push(performance.now() - started);
    }
    notes.push(`one save of A's draft alone takes ${ms(Math.min(...draftSaves))}-${ms(Math.max(...draftSaves))} ms (the most B's save can wait behind one of A's compiles on a quiet machine)`);

    ctx.log(`B alone: ${ROUNDS} rounds`);
    const aloneProbe = startHealthProbe(ctx, url, 'alone', 2, 5);
    await neighbourRounds(apiB, b, 'warmup');
    const alone = await neighbourRounds(apiB, b, 'alone');
    const aloneHealth = healthLatencyOf((await aloneProbe.stop()).filter((s) => s[2] !== -1));

    ctx.log(`B beside A's attack: ${ROUNDS} rounds after ${ctx.warmupSec} s of attack`);
    const loadAttack = loads();
    const tallyFile = join(ctx.workDir, 'attack-tally.json');
    const attacker = startProcess(process.execPath, ['--import', 'tsx', 'bench/noisy-attacker.ts', join(ctx.workDir, 'attack-plan.json'), tallyFile], {
      cwd: ctx.repoDir,
      logFile: join(ctx.workDir, 'attacker.log'),
    });
    const noisyProbe = startHealthProbe(ctx, url, 'noisy', 2, 5);
    await sleep(ctx.warmupSec * 1000);
    const noisyFrom = Date.now();
    const noisy = await neighbourRounds(apiB, b, 'noisy');
    // A request the stop cut short (-1) says nothing about the server, as in the quiet phase.
    const noisyHealth = healthLatencyOf((await noisyProbe.stop()).filter((s) => s[0] >= noisyFrom && s[2] !== -1));
    await attacker.stop(30_000);
    const tally = JSON.parse(readFileSync(tallyFile, 'utf8')) as Record<string, Record<string, number>>;

    // The control: B beside processes that only burn CPU, as many as the threads A's budgets still
    // let it keep busy off the HTTP thread, each running its work to the end once started (none can
    // be preempted): one compile on a compile thread, one read in the read pool, one render on the
    // API's render thread, one DKIM key on the key thread. What B loses here is CPU share, not a queue.
    ctx.log(`B beside ${CONTROL_BURNERS} CPU burners (the control): ${ROUNDS} rounds`);
    const burners = Array.from({ length: CONTROL_BURNERS }, () => startProcess(process.execPath, ['-e', 'for (;;) {}'], { cwd: ctx.repoDir }));
    const controlProbe = startHealthProbe(ctx, url, 'control', 2, 5);
    await sleep(1000);
    const controlFrom = Date.now();
    const control = await neighbourRounds(apiB, b, 'control');
    const controlHealth = healthLatencyOf((await controlProbe.stop()).filter((s) => s[0] >= controlFrom && s[2] !== -1));
    await Promise.all(burners.map((p) => p.stop()));

    const rows: (string | number)[][] = [];
    let ratiosMet = true;
    for (const op of OPERATIONS) {
      const [a50, a99, n50, n99] = [percentile(alone.samples[op], 0.5), percentile(alone.samples[op], 0.99), percentile(noisy.samples[op], 0.5), percentile(noisy.samples[op], 0.99)];
      const [c50, c99] = [percentile(control.samples[op], 0.5), percentile(control.samples[op], 0.99)];
      const ratio = n99 / a99;
      const met = op === 'one-step workflow' ? n99 <= TARGET_WORKFLOW_MS : ratio <= TARGET_RATIO;
      ratiosMet &&= met;
      rows.push([op, ms(a50), ms(a99), ms(n50), `**${ms(n99)}**`, ratio.toFixed(2), met ? 'met' : 'NOT met', ms(c50), ms(c99), (c99 / a99).toFixed(2)]);
    }
    const healthMet = noisyHealth.p99 < TARGET_HEALTH_P99_MS && noisyHealth.failed === 0;
    const errorsMet = noisy.errors.length === 0 && alone.errors.length === 0 && control.errors.length === 0;
    const met = ratiosMet && healthMet && errorsMet;
    const cpu = cpus();
    const markdown = [
      "## Noisy neighbour: account B's ordinary work while account A attacks (issue 28)",
      '',
      `- Date: ${date}`,
      '- Command: `npm run bench -- --only noisy-neighbour`',
      `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}. Load average (1, 5, 15 min) at the start: ${loadStart}; as the attack began: ${loadAttack}; at the end: ${loads()}.`,
      '- Server: `./bin/sendwell serve` on SQLite, operator defaults (LOG_LEVEL=info, mail to the dev inbox). Three other processes share its two cores: A\'s attacker (bench/noisy-attacker.ts), the /health prober (bench/health-poller.ts, 2 connections, 5 ms pause) and this script as B\'s client.',
      `- B: ${ROUNDS} rounds of its six operations one after another (after one round of warm-up), alone and then beside the attack (${ctx.warmupSec} s into it). p99 of ${ROUNDS} samples is the worst of them. The workflow is measured from the create that adds its trigger tag until GET shows the step's tag (polled every 25 ms).`,
      `- A, all at once: ${notes.join('; ')}; the checks of a 250 KB campaign built from tags that never close; ${8} loops of anonymous web views and one of the archive feed, each request from another client address (X-Forwarded-For through a trusted loopback proxy, so the per-address limit does not hold the flood back); domain creation in a loop.`,
      `- Control: B\'s same rounds beside ${CONTROL_BURNERS} processes that only burn CPU (\`node -e "for (;;) {}"\`), no other work on the server: what B pays for sharing ${cpu.length} cores with ${CONTROL_BURNERS} busy threads, which is what A\'s budgets still let it hold off the HTTP thread (one compile, one tenant read, one render and one DKIM key, each running to its end once started; none can be preempted).`,
      '',
      table(['B operation', 'alone p50 ms', 'alone p99 ms', 'beside A p50 ms', 'beside A p99 ms', 'p99 ÷ alone', 'target', 'control p50 ms', 'control p99 ms', 'control p99 ÷ alone'], rows),
      '',
      table(
        ['/health', 'requests', 'failed', 'p50 ms', 'p99 ms', 'max ms'],
        [
          ['B alone', aloneHealth.count, aloneHealth.failed, ms(aloneHealth.p50), ms(aloneHealth.p99), ms(aloneHealth.max)],
          ['beside the attack', noisyHealth.count, noisyHealth.failed, ms(noisyHealth.p50), `**${ms(noisyHealth.p99)}**`, ms(noisyHealth.max)],
          [`control: beside ${CONTROL_BURNERS} CPU burners, no attack`, controlHealth.count, controlHealth.failed, ms(controlHealth.p50), ms(controlHealth.p99), ms(controlHealth.max)],
        ],
      ),
      '',
      "What A's requests got while B was measured (status: count), which shows the attack ran and where the server's budgets refused it:",
      '',
      table(
        ['A request', 'answers'],
        Object.entries(tally).map(([kind, byStatus]) => [kind, Object.entries(byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')]),
      ),
      '',
      `Targets: B's p99 within ${TARGET_RATIO}x of alone for each operation, B's one-step workflow within ${TARGET_WORKFLOW_MS / 1000} s: **${ratiosMet ? 'met' : 'NOT met'}**; /health p99 under ${TARGET_HEALTH_P99_MS} ms beside the attack: **${healthMet ? 'met' : 'NOT met'}**; B's requests all answered 2xx: **${errorsMet ? 'yes' : `no: ${[...alone.errors, ...noisy.errors].slice(0, 5).join('; ')}`}**.`,
    ].join('\n');
    return { id: 'noisy-neighbour', markdown, targetMet: met };
  } finally {
    await server.stop();
  }
}
