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
  | { kind: 'run'; request: KeyedRequest };

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

  async admit(accountId: number, key: string, fingerprint: string): Promise<Admission> {
    const kept = await findKeptAnswer(this.handle.db, accountId, key, new Date().toISOString());
    if (kept) return answerOf(kept, fingerprint);
    const hold = await this.holds.take(accountId, key);
    if (!hold) return { kind: 'in-progress' };
    // A request with the key may have committed between the look and the hold.
    const committed = await findKeptAnswer(this.handle.db, accountId, key, new Date().toISOString()).catch(async (err) => {
      await hold.release();
      throw err;
    });
    if (committed) {
      await hold.release();
      return answerOf(committed, fingerprint);
    }
    return { kind: 'run', request: new KeyedRequest(this, { accountId, key, fingerprint }, openRequestScope(this.handle), hold) };
  }

  /**
   * Ends the request's transaction: a 2xx `body` is kept under the key and committed with the
   * effects; any other answer commits the effects alone (as without a key), and the key stays free.
   */
  async finish(identity: Identity, scope: RequestScope, hold: Hold, status: number, body: string | null): Promise<Finish> {
    try {
      if (status < 200 || status > 299 || body === null) {
        await this.runAfterCommit(await scope.end('commit'));
        return { kind: 'own' };
      }
      const now = new Date();
      const row = { account_id: identity.accountId, key: identity.key, fingerprint: identity.fingerprint, status_code: status, response_body: body, created_at: now.toISOString(), expires_at: new Date(now.getTime() + KEPT_FOR_MS).toISOString() };
      const won = await runInRequestScope(scope, () => this.handle.db.transaction().execute((trx) => keepAnswer(trx, row)));
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
      await hold.release().catch((err) => this.logger.warn({ err }, 'could not release an idempotency hold; it expires by itself'));
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

/** A request that runs under its key: its scope to run in, and its end (`finish`, exactly once). */
export class KeyedRequest {
  private finished: Promise<Finish> | null = null;

  constructor(
    private readonly service: IdempotencyService,
    private readonly identity: Identity,
    readonly scope: RequestScope,
    private readonly hold: Hold,
  ) {}

  run<R>(fn: () => R): R {
    return runInRequestScope(this.scope, fn);
  }

  finish(status: number, body: string | null): Promise<Finish> {
    return (this.finished ??= this.service.finish(this.identity, this.scope, this.hold, status, body));
  }
}
