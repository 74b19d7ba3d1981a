import { sql } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { preparedQuery } from '../../db/prepared.ts';

/** D25.6: the kept answers of requests sent with an Idempotency-Key (table idempotency_keys). */

export interface KeptAnswer {
  fingerprint: string;
  status_code: number;
  response_body: string;
}

/** Built once (preparedQuery): it runs before every request with a key. */
const keptAnswer = preparedQuery<[number, string, string], KeptAnswer>(3, (db, _dialect, accountId, key, now) =>
  db.selectFrom('idempotency_keys').select(['fingerprint', 'status_code', 'response_body']).where('account_id', '=', accountId).where('key', '=', key).where('expires_at', '>', now),
);

/** The answer kept under the account's key, unless it has expired. */
export async function findKeptAnswer(db: Db, accountId: number, key: string, now: string): Promise<KeptAnswer | undefined> {
  const [row] = await keptAnswer(db, accountId, key, now);
  return row;
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
  const kept = await keptAnswerInsert(db, row.account_id, row.key, row.fingerprint, row.status_code, row.response_body, row.created_at, row.expires_at);
  return kept.length > 0;
}

const keptAnswerInsert = preparedQuery<[number, string, string, number, string, string, string], { account_id: number }>(7, (db, _dialect, accountId, key, fingerprint, status, body, createdAt, expiresAt) =>
  db
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, key, fingerprint, status_code: status, response_body: body, created_at: createdAt, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'key'])
        .doUpdateSet((eb) => ({
          fingerprint: eb.ref('excluded.fingerprint'),
          status_code: eb.ref('excluded.status_code'),
          response_body: eb.ref('excluded.response_body'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.expires_at', '<=', (eb) => eb.ref('excluded.created_at')),
    )
    .returning('account_id'),
);

/** Deletes up to `limit` expired rows; answers how many went. */
export async function deleteExpired(db: Db, now: string, limit: number): Promise<number> {
  const result = await sql`
    delete from idempotency_keys where (account_id, key) in (
      select account_id, key from idempotency_keys where expires_at <= ${now} limit ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
