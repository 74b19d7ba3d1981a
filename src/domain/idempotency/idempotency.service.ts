import type { Logger } from 'pino';
import { openRequestScope, type DbHandle } from '../../db/connect.ts';
import { runInRequestScope, type RequestScope } from '../../db/request-transaction.ts';
import type { AfterCommit } from '../../db/transaction.ts';
import { KEPT_FOR_MS } from './idempotency.ts';
import { deleteExpired, findKeptAnswer, keepAnswer, type KeptAnswer } from './idempotency.repo.ts';
import type { Hold, InFlightHolds } from './in-flight-holds.ts';

/** What a request with an Idempotency-Key gets before it runs. */
export type Admission =
  | { kind: 'replay'; status: number; body: string }
  /** the key was used for another method, path or body: 422 IDEMPOTENCY_KEY_REUSED */
  | { kind: 'reused' }
  /** a request with the key still runs: 409 IDEMPOTENCY_KEY_IN_PROGRESS */
  | { kind: 'in-progress' }
  | { kind: 'run' };

/** What the request answers once it has run: its own answer, or (it lost a race) another's. */
export type Finish = { kind: 'own' } | Exclude<Admission, { kind: 'run' }>;

/** Expired rows leave in bounded batches, at most once a minute per process. */
const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 500;

interface Identity {
  accountId: number;
  key: string;
  fingerprint: string;
}

/**
 * D25.6. A request with a key runs inside a RequestScope (one transaction for all it does). Its
 * answer, when 2xx, is kept under the key in that same transaction, so the effects and the key
 * commit together (a crash between commit and answer leaves both: the retry replays).
 */
export class IdempotencyService {
  private lastSweepMs = 0;

  constructor(
    private readonly handle: DbHandle,
    private readonly holds: InFlightHolds,
    private readonly logger: Logger,
    /** test-only (config `testCrashAfterCommitKey`): called right after the commit of a kept answer */
    private readonly afterCommitOf: (key: string) => void = () => undefined,
  ) {}

  /** A request under the account's key: admitted (or not) by `admit`, ended by `finish`. */
  open(accountId: number, key: string): KeyedRequest {
    return new KeyedRequest(this, accountId, key, openRequestScope(this.handle));
  }

  /** The kept answer's replay or refusal, or the hold on the key for this request to run. */
  async admit(accountId: number, key: string, fingerprint: string): Promise<Exclude<Admission, { kind: 'run' }> | Hold> {
    const kept = await findKeptAnswer(this.handle.db, accountId, key, new Date().toISOString());
    if (kept) return answerOf(kept, fingerprint);
    // A request with the key that commits between this look and the hold is not looked for again:
    // this one then runs, finds its row when keeping its answer, rolls back and replays it (finish).
    return (await this.holds.take(accountId, key)) ?? { kind: 'in-progress' };
  }

  /**
   * Ends the request's transaction: a 2xx `body` is kept under the key and committed with the
   * effects; any other answer commits the effects alone (as without a key), and the key stays free.
   */
  async finish(identity: Identity | null, scope: RequestScope, hold: Hold | null, status: number, body: string | null): Promise<Finish> {
    try {
      if (identity === null || status < 200 || status > 299 || body === null) {
        await this.runAfterCommit(await scope.end('commit'));
        return { kind: 'own' };
      }
      const now = new Date();
      const row = { account_id: identity.accountId, key: identity.key, fingerprint: identity.fingerprint, status_code: status, response_body: body, created_at: now.toISOString(), expires_at: new Date(now.getTime() + KEPT_FOR_MS).toISOString() };
      // On the outer transaction itself (opened now if the request wrote nothing).
      const won = await runInRequestScope(scope, async () => {
        await scope.outer();
        return keepAnswer(this.handle.db, row);
      });
      if (!won) {
        // Another instance's request with the key committed first: this one's effects go, its answer is the replay.
        await scope.end('rollback');
        const winner = await findKeptAnswer(this.handle.db, identity.accountId, identity.key, now.toISOString());
        return winner ? answerOf(winner, identity.fingerprint) : { kind: 'in-progress' };
      }
      const work = await scope.end('commit');
      this.afterCommitOf(identity.key);
      await this.runAfterCommit(work);
      this.sweepNowAndThen();
      return { kind: 'own' };
    } catch (err) {
      await scope.end('rollback').catch(() => undefined);
      throw err;
    } finally {
      await hold?.release().catch((err) => this.logger.warn({ err }, 'could not release an idempotency hold; it expires by itself'));
    }
  }

  private async runAfterCommit(work: AfterCommit[]): Promise<void> {
    for (const [index, piece] of work.entries()) {
      try {
        await piece();
      } catch (err) {
        this.logger.error({ err, index, of: work.length }, 'after-commit work failed; the transaction stays committed');
      }
    }
  }

  private sweepNowAndThen(): void {
    const nowMs = Date.now();
    if (nowMs - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = nowMs;
    deleteExpired(this.handle.db, new Date(nowMs).toISOString(), SWEEP_BATCH).catch((err) => this.logger.warn({ err }, 'could not delete expired idempotency keys'));
  }
}

function answerOf(kept: KeptAnswer, fingerprint: string): Exclude<Admission, { kind: 'run' }> {
  return kept.fingerprint === fingerprint ? { kind: 'replay', status: kept.status_code, body: kept.response_body } : { kind: 'reused' };
}

/**
 * A request with an Idempotency-Key: its scope to run in (one transaction), its admission once its
 * body is known (`admit`; an upload's once its file is read), and its end (`finish`, once).
 */
export class KeyedRequest {
  private hold: Hold | null = null;
  private fingerprint: string | null = null;
  private finished: Promise<Finish> | null = null;
  /** what `admit` answered, once it has */
  admission: Admission['kind'] | null = null;

  constructor(
    private readonly service: IdempotencyService,
    readonly accountId: number,
    readonly key: string,
    readonly scope: RequestScope,
  ) {}

  async admit(fingerprint: string): Promise<Admission> {
    if (this.admission !== null) throw new Error('a keyed request is admitted once');
    const answer = await this.service.admit(this.accountId, this.key, fingerprint);
    const admission: Admission = 'release' in answer ? { kind: 'run' } : answer;
    if ('release' in answer) {
      this.hold = answer;
      this.fingerprint = fingerprint;
    }
    this.admission = admission.kind;
    return admission;
  }

  run<R>(fn: () => R): R {
    return runInRequestScope(this.scope, fn);
  }

  finish(status: number, body: string | null): Promise<Finish> {
    return (this.finished ??= this.end(status, body));
  }

  private async end(status: number, body: string | null): Promise<Finish> {
    // Not admitted to run (refused, replayed, or failed before its upload was read): it holds no
    // key, and ends its transaction as a request without a key would.
    if (!this.hold || this.fingerprint === null) return this.service.finish(null, this.scope, null, status, null);
    return this.service.finish({ accountId: this.accountId, key: this.key, fingerprint: this.fingerprint }, this.scope, this.hold, status, body);
  }
}
