import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DbHandle } from '../db/connect.ts';
import { claimDueDeliveries, pruneDeliveries, recordAttempt, releaseDeliveries, type AttemptOutcome, type AttemptRecord, type ClaimedDelivery } from '../domain/outbound-webhooks/deliveries.repo.ts';
import { MAX_RETRY_DELAY_MS } from '../domain/shared/backoff.ts';
import { FairQueue, interleaveByAccount } from '../domain/shared/fair-queue.ts';
import { signBody } from '../domain/shared/signature.ts';
import { toEpochMs } from '../domain/shared/time.ts';
import { PollingLoop } from '../polling-loop.ts';
import { RefusedDestination, vetDestination } from '../domain/outbound-webhooks/destination-guard.ts';
import { postPinned, PostTimeout, type PostAnswer } from './post.ts';
import { nextAttemptAt } from './retry-schedule.ts';

export type DeliveryWorkerOptions = Config['webhooks'];

/** An answer is read up to this much; a receiver sending more is cut off there. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of an answer the delivery log keeps. */
export const RESPONSE_EXCERPT_CHARS = 1024;
/** A claim outlives the longest attempt by this much, so recording its outcome never races the lease. */
const LEASE_MARGIN_MS = 60_000;
/** How often the delivery log is pruned, and how many rows one statement deletes. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_CHUNK = 1000;

export const SIGNATURE_HEADER = 'Sendwell-Signature';

/**
 * Delivers outbound webhooks: claims due deliveries as slots free up (at most `concurrency` in
 * flight, so one slow receiver holds one slot, not the worker), POSTs each signed body to the
 * address vetted for it, and records every attempt. A 2xx is DELIVERED; anything else is retried
 * with backoff for the retry window, then FAILED; a refused destination is FAILED at once.
 *
 * Issue 28: the slots are shared fairly between accounts. A claim takes at most `perAccount` due
 * deliveries of each account, starts them in turn order (interleaveByAccount), and an account
 * holds at most one slot more than an endpoint may (FairQueue's maxInFlightPerAccount): an
 * account whose receivers all hang until the timeout, with thousands of deliveries due, slows
 * its own deliveries, and another account's go out in the next claim.
 */
export class WebhookDeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** deliveries in flight per endpoint: one slow endpoint may take at most `perEndpoint` slots */
  private readonly endpointLoad = new Map<number, number>();
  private readonly perEndpoint: number;
  /** deliveries in flight per account (the fairness policy's in-flight cap); nothing waits in it between claims */
  private readonly accounts: FairQueue<ClaimedDelivery>;
  private readonly perAccount: number;
  /** accounts with deliveries in flight */
  private readonly accountsBusy = new Set<number>();
  private readonly loop: PollingLoop;
  private pruneTimer: NodeJS.Timeout | null = null;
  private pruning: Promise<void> | null = null;

  constructor(
    private readonly handle: DbHandle,
    private readonly opts: DeliveryWorkerOptions,
    private readonly logger: Logger,
  ) {
    this.loop = new PollingLoop(() => this.round(), opts.pollMs, (err) => this.logger.error({ err }, 'claiming webhook deliveries failed; retrying'));
    // Half the slots: an endpoint that hangs until the timeout slows its own deliveries, and the
    // other endpoints still have the other half.
    this.perEndpoint = Math.max(1, Math.floor(opts.concurrency / 2));
    // Issue 28: an account may hold one slot more than an endpoint (so one of its endpoints that
    // hangs leaves room for its others), and no more however many endpoints it has: the other
    // accounts keep the rest (with 4 slots or more, at least one).
    this.perAccount = Math.min(opts.concurrency, this.perEndpoint + 1);
    this.accounts = new FairQueue({ quantum: 1, maxInFlightPerAccount: this.perAccount });
  }

  start(): void {
    this.loop.start();
    if (this.pruneTimer) return;
    const prune = () => void (this.pruning ??= this.prune().finally(() => (this.pruning = null)));
    prune();
    this.pruneTimer = setInterval(prune, PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  /** Stops claiming; deliveries in flight finish (each within the timeout) and are recorded. */
  async stop(): Promise<void> {
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.pruneTimer = null;
    await this.loop.stop();
    await Promise.all([...this.inFlight, this.pruning]);
  }

  /** The delivery log keeps finished deliveries for WEBHOOK_LOG_RETENTION_DAYS; pending ones stay. */
  private async prune(): Promise<void> {
    const before = new Date(Date.now() - this.opts.logRetentionDays * 86_400_000).toISOString();
    try {
      // In chunks, each its own statement, so no single delete holds the database for long.
      let deleted: number;
      do deleted = await pruneDeliveries(this.handle.db, before, PRUNE_CHUNK);
      while (deleted === PRUNE_CHUNK && this.pruneTimer);
    } catch (err) {
      this.logger.error({ err }, 'pruning the webhook delivery log failed; trying again later');
    }
  }

  /** Fills the free slots with due deliveries; with every slot taken, first waits for one to free. */
  private async round(): Promise<number> {
    if (this.inFlight.size >= this.opts.concurrency) await Promise.race(this.inFlight);
    const now = Date.now();
    const leaseUntil = new Date(now + this.opts.timeoutMs + LEASE_MARGIN_MS).toISOString();
    const full = [...this.endpointLoad].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id);
    const busyAccounts = [...this.accountsBusy].filter((a) => this.accounts.inFlightCount(a) >= this.perAccount);
    const rows = await claimDueDeliveries(this.handle.db, this.handle.dialect, {
      limit: this.opts.concurrency - this.inFlight.size,
      now: new Date(now).toISOString(),
      leaseUntil,
      perAccount: this.perAccount,
      skipEndpoints: full,
      skipAccounts: busyAccounts,
    });
    // Turn order across accounts; the policy then starts what each account's share of slots allows.
    for (const row of interleaveByAccount(rows, (r) => r.account_id)) this.accounts.push(row.account_id, row);
    const overflow: number[] = [];
    for (let row = this.accounts.take(); row !== null; row = this.accounts.take()) {
      const load = this.endpointLoad.get(row.endpoint_id) ?? 0;
      // One claim can still hold more of an endpoint's rows than its share: those go back at once.
      if (load >= this.perEndpoint) {
        this.accounts.done(row, 0);
        overflow.push(row.id);
        continue;
      }
      this.launch(row, leaseUntil);
    }
    // What an account's share of slots left over (it had some in flight already) goes back too.
    for (const row of rows) if (this.accounts.remove(row)) overflow.push(row.id);
    await releaseDeliveries(this.handle.db, overflow, leaseUntil);
    return rows.length - overflow.length;
  }

  private launch(row: ClaimedDelivery, leaseUntil: string): void {
    this.endpointLoad.set(row.endpoint_id, (this.endpointLoad.get(row.endpoint_id) ?? 0) + 1);
    this.accountsBusy.add(row.account_id);
    const work = this.deliver(row, leaseUntil)
      .catch((err) => this.logger.error({ err, delivery: row.id }, 'recording a webhook delivery failed; it is retried when its claim ends'))
      .finally(() => {
        this.inFlight.delete(work);
        this.accounts.done(row, 1);
        if (this.accounts.inFlightCount(row.account_id) === 0) this.accountsBusy.delete(row.account_id);
        const left = (this.endpointLoad.get(row.endpoint_id) ?? 1) - 1;
        if (left > 0) this.endpointLoad.set(row.endpoint_id, left);
        else this.endpointLoad.delete(row.endpoint_id);
      });
    this.inFlight.add(work);
  }

  private async deliver(row: ClaimedDelivery, leaseUntil: string): Promise<void> {
    const started = Date.now();
    let answer: PostAnswer | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      const url = new URL(row.url);
      // One deadline for all of it: a DNS server that never answers is a timeout too.
      const deadline = started + this.opts.timeoutMs;
      const target = await beforeDeadline(vetDestination(url.hostname, this.opts.allowPrivate), deadline, `no DNS answer for ${url.hostname} within ${this.opts.timeoutMs} ms`);
      answer = await postPinned(url, target, this.headers(row), row.payload, { timeoutMs: Math.max(1, deadline - Date.now()), maxResponseBytes: MAX_RESPONSE_BYTES });
    } catch (err) {
      refused = err instanceof RefusedDestination;
      // Issue 14 L8: the tenant's delivery log says only "destination not allowed"; what the host resolved to is for the operator.
      if (err instanceof RefusedDestination) this.logger.warn({ delivery: row.id, endpoint: row.endpoint_id, detail: err.detail }, 'webhook destination refused');
      error = describeFailure(err);
    }
    const attemptedAt = new Date().toISOString();
    const attempt: AttemptRecord = {
      attemptedAt,
      statusCode: answer?.statusCode ?? null,
      error: error ?? (answer && !isSuccess(answer.statusCode) ? `the receiver answered ${answer.statusCode}` : null),
      durationMs: Date.now() - started,
      responseExcerpt: answer ? excerpt(answer) : null,
    };
    const outcome = this.outcome(row, answer, refused);
    await this.handle.db.transaction().execute((trx) => recordAttempt(trx, { id: row.id, leaseUntil }, attempt, outcome));
    if (outcome.status === 'FAILED') this.logger.warn({ delivery: row.id, endpoint: row.endpoint_id, error: attempt.error }, 'webhook delivery failed for good');
  }

  private outcome(row: ClaimedDelivery, answer: PostAnswer | null, refused: boolean): AttemptOutcome {
    if (answer && isSuccess(answer.statusCode)) return { status: 'DELIVERED', nextAttemptAt: null };
    if (refused) return { status: 'FAILED', nextAttemptAt: null };
    const policy = { baseMs: this.opts.retryBaseMs, maxDelayMs: MAX_RETRY_DELAY_MS, windowMs: this.opts.retryWindowMs };
    const next = nextAttemptAt(policy, Number(row.attempts) + 1, toEpochMs(row.created_at) ?? Date.now(), Date.now());
    return next === null ? { status: 'FAILED', nextAttemptAt: null } : { status: 'PENDING', nextAttemptAt: new Date(next).toISOString() };
  }

  /** Signed like Stripe's webhooks (and our own generic inbound format): `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
  private headers(row: ClaimedDelivery): Record<string, string> {
    return {
      [SIGNATURE_HEADER]: signBody(row.secret, row.payload, Math.floor(Date.now() / 1000)),
      'Sendwell-Event': row.event_type,
      'Sendwell-Delivery': String(row.id),
      'User-Agent': 'Sendwell-Webhooks',
    };
  }
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/** `work`'s result, or a PostTimeout once `deadline` (epoch ms) passes first. */
function beforeDeadline<T>(work: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PostTimeout(message)), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function excerpt(answer: PostAnswer): string {
  const text = answer.body.length > RESPONSE_EXCERPT_CHARS ? answer.body.slice(0, RESPONSE_EXCERPT_CHARS) : answer.body;
  return answer.truncated ? `${text} [answer cut off after ${MAX_RESPONSE_BYTES} bytes]` : text;
}

/** What went wrong, for the delivery log: said plainly, never with the secret or the body. */
function describeFailure(err: unknown): string {
  if (err instanceof RefusedDestination) return err.message;
  if (err instanceof PostTimeout) return `timed out: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  return `network error: ${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`.slice(0, 500);
}
