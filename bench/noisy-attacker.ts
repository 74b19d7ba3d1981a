/**
 * Account A of bench/noisy-neighbour.ts, run as a process of its own so its requests never share
 * an event loop with account B's measurements:
 *   node --import tsx bench/noisy-attacker.ts <plan.json> <outFile>
 * It does every expensive thing an account can at once (issue 28), each in its own loop(s), until
 * SIGTERM, then writes how many requests of each kind it made and how they were answered, so the
 * report shows the attack was really under way (and what the server refused, past which budget).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** What the bench prepared for the attack (ids, links, bodies); see noisy-neighbour.ts. */
export interface AttackPlan {
  url: string;
  key: string;
  /** a campaign whose HTML defeats backtracking scans: GET .../checks */
  checksCampaignId: number;
  /** the heaviest segment filter the server accepts */
  segmentFilter: unknown;
  /** campaigns whose large MJML drafts are saved again and again */
  draftCampaignIds: number[];
  draftBody: Record<string, unknown>;
  /** web-view links of A's sent campaign, and its archive feed */
  webviewUrls: string[];
  feedUrl: string;
  /** the tag whose adding starts A's chain of workflows */
  fanoutTag: string;
  /** loops of each kind */
  webviewLoops: number;
}

type Tally = Record<string, Record<string, number>>;

const [planFile, outFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as AttackPlan;
const tally: Tally = {};
let stopping = false;
let seq = 0;

function count(kind: string, status: number | string): void {
  const byStatus = (tally[kind] ??= {});
  byStatus[status] = (byStatus[status] ?? 0) + 1;
}

async function hit(kind: string, method: string, path: string, body?: unknown, withKey = true): Promise<void> {
  try {
    const res = await fetch(path.startsWith('http') ? path : plan.url + path, {
      method,
      // Anonymous requests come from many addresses, as a botnet's would: the per-address tracking
      // limit must not be what holds the flood back (the server trusts the bench's loopback proxy).
      headers: { ...(withKey ? { 'x-api-key': plan.key } : { 'x-forwarded-for': `198.18.${(seq >> 8) & 255}.${seq++ & 255}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    await res.arrayBuffer();
    count(kind, res.status);
    // A refusal with Retry-After is honoured, as a client library would; other answers go straight on.
    const retry = Number(res.headers.get('retry-after'));
    if (res.status === 429 && retry > 0) await sleep(Math.min(retry, 5) * 1000);
  } catch (err) {
    count(kind, (err as Error).name === 'TimeoutError' ? 'timeout' : 'error');
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function loop(step: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; !stopping; i++) await step(i);
}

let domainSeq = 0;
const loops: Promise<void>[] = [
  loop(() => hit('checks (hostile HTML)', 'GET', `/api/v1/campaigns/${plan.checksCampaignId}/checks`)),
  loop(() => hit('segment preview (heaviest filter)', 'POST', '/api/v1/segments/preview', { filter: plan.segmentFilter })),
  ...plan.draftCampaignIds.map((id) => loop(() => hit('save large MJML draft', 'PUT', `/api/v1/campaigns/${id}`, plan.draftBody))),
  ...Array.from({ length: plan.webviewLoops }, (_, n) =>
    loop((i) => hit('web view (anonymous)', 'GET', plan.webviewUrls[(i * plan.webviewLoops + n) % plan.webviewUrls.length], undefined, false)),
  ),
  loop(() => hit('archive feed (anonymous)', 'GET', plan.feedUrl, undefined, false)),
  loop(async (i) => {
    const contacts = Array.from({ length: 200 }, (_, j) => ({ email: `fan-${process.pid}-${i}-${j}@a.bench`, tags: [plan.fanoutTag] }));
    await hit('bulk import starting the workflow chain', 'POST', '/v1/contacts/bulk', { contacts });
    await sleep(500);
  }),
  loop(() => hit('create sending domain (RSA key)', 'POST', '/api/v1/domains', { domain: `d${process.pid}-${domainSeq++}.a-bench.test` })),
];

process.once('SIGTERM', () => {
  stopping = true;
  // Loops end after their request in flight; a request held past 10 s is not waited for.
  void Promise.race([Promise.all(loops), sleep(10_000)]).then(() => {
    writeFileSync(outFile, JSON.stringify(tally));
    process.exit(0);
  });
});
