import { sql } from 'kysely';
import type { Db } from '../../db/connect.ts';

/** D25.6: the kept answers of requests sent with an Idempotency-Key (table idempotency_keys). */

export interface KeptAnswer {
  fingerprint: string;
  status_code: number;
  response_body: string;
}

/** The answer kept under the account's key, unless it has expired. */
export function findKeptAnswer(db: Db, accountId: number, key: string, now: string): Promise<KeptAnswer | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'status_code', 'response_body'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export interface NewKeptAnswer extends KeptAnswer {
  account_id: number;
  key: string;
  created_at: string;
  expires_at: string;
}

/**
 * Keeps the answer, in the request's own transaction. An expired row of the same key is replaced;
 * a live one (another instance's request with the key committed first) is left alone, and the
 * answer is false: the caller rolls its request back. On PostgreSQL a concurrent insert of the
 * same key waits here for the other transaction, then sees its row.
 */
export async function keepAnswer(db: Db, row: NewKeptAnswer): Promise<boolean> {
  const kept = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'key'])
        .doUpdateSet({
          fingerprint: row.fingerprint,
          status_code: row.status_code,
          response_body: row.response_body,
          created_at: row.created_at,
          expires_at: row.expires_at,
        })
        .where('idempotency_keys.expires_at', '<=', row.created_at),
    )
    .returning('account_id')
    .executeTakeFirst();
  return kept !== undefined;
}

/** Deletes up to `limit` expired rows; answers how many went. */
export async function deleteExpired(db: Db, now: string, limit: number): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where (account_id, key) in (
      select account_id, key from idempotency_keys where expires_at <= ${now} limit ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
