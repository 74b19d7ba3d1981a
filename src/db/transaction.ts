import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';
import { activeScope } from './request-transaction.ts';
import { bindTransaction } from './connect.ts';

/** Work that must wait for the commit: a mail, a message to another system. */
export type AfterCommit = () => unknown;

/** Where a failed piece of after-commit work is told: the service's logger (pino's shape). */
export interface AfterCommitLog {
  error(details: object, message: string): void;
}

/**
 * A transaction that owns its after-commit work (as atproto's PDS does): `onCommit(work)` runs
 * `work` once the transaction has committed, in the order registered, and never after a rollback.
 * A writer whose change wants such work asks for a Tx in its type, so no caller can commit the
 * change and forget the work, and none can send it for a change a rollback undid.
 */
export type Tx = Transaction<Database> & { onCommit(work: AfterCommit): void };

/** Runs the transaction itself, e.g. through a gate that lets one background step at a time in. */
export type TransactionGate = <R>(open: () => Promise<R>) => Promise<R>;

/**
 * Runs `fn` in one transaction, then its after-commit work. Each piece is awaited in turn; one that
 * fails is logged and the next still runs: the transaction has committed, so the caller's answer
 * stays a success (the work's own owner decides how to retry it, e.g. asking again resends a
 * confirmation). Work registered once the transaction has ended is a bug and throws. `gate`
 * wraps the transaction alone: the after-commit work (a mail, slow) never holds a gate's turn.
 */
export async function transaction<T>(db: Kysely<Database>, log: AfterCommitLog, fn: (trx: Tx) => Promise<T>, gate: TransactionGate = (open) => open()): Promise<T> {
  const pending: AfterCommit[] = [];
  let open = true;
  const result = await gate(() =>
    db.transaction().execute((trx) => {
      bindTransaction(trx, db);
      const tx = Object.assign(trx, {
        onCommit(work: AfterCommit) {
          if (!open) throw new Error('onCommit after the transaction ended: the work would never run');
          pending.push(work);
        },
      });
      return fn(tx);
    }),
  ).finally(() => {
    open = false;
  });
  // D25.6: inside a request that is one transaction, this one was a savepoint of it; its work
  // waits for the request's commit (and is dropped by its rollback).
  const scope = activeScope();
  if (scope?.opened) {
    for (const work of pending) scope.defer(work);
    return result;
  }
  for (const [index, work] of pending.entries()) {
    try {
      await work();
    } catch (err) {
      log.error({ err, index, of: pending.length }, 'after-commit work failed; the transaction stays committed');
    }
  }
  return result;
}
