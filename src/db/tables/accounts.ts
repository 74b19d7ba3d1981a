import type { ColumnType, Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Flag } from './columns.ts';

/** Accounts and who acts for them: API keys and their usage, dashboard users, sessions and sign-ups. */

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  plan: string;
  /** D22: unique, lowercase letters, digits and dashes (account-slug.ts); names the public archive */
  slug: string;
  /** Issue 34: IANA name (time-zone.ts), as given (D26.9); the dashboard's dates and schedule picker use it */
  time_zone: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string | null;
  key_hash: string;
  masked_key: string;
  permissions: string;
  status: string;
  permanently_revoked: Flag;
  request_count: ColumnType<number, number | undefined, number>;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  expires_at: NullableTimestamp;
}

export interface ApiKeyEndpointUsageTable {
  key_id: number;
  method: string;
  route: string;
  count: number;
}

/** A person who signs in to the dashboard; belongs to one account. */
export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  /** argon2id, in the PHC string form */
  password_hash: string;
  created_at: Timestamp;
  /** D24.1: owner | admin | manager | author | viewer (roles.ts) */
  role: ColumnType<string, string | undefined, string>;
  last_sign_in_at: NullableTimestamp;
  /** D24.6: base32, set by setup; two-factor is on only once totp_enabled_at is set */
  totp_secret: string | null;
  totp_enabled_at: NullableTimestamp;
  /** the last 30-second step whose code was accepted: codes of it or earlier are replays */
  totp_last_step: number | string | null;
}

/** A dashboard sign-in. `id` is the SHA-256 of the cookie's token (the token itself is never stored). */
export interface SessionsTable {
  id: string;
  user_id: number;
  account_id: number;
  csrf_token: string;
  expires_at: Timestamp;
  created_at: Timestamp;
  /** D24.5: the id the API shows and takes (random, not derived from the cookie) */
  public_id: string;
  ip: string | null;
  user_agent: string | null;
  last_seen_at: NullableTimestamp;
}

/** Issue 14 L5: a sign-up waiting for its address to be confirmed. `id` is the SHA-256 of the mailed link's token. */
export interface SignupRequestsTable {
  id: string;
  email: string;
  /** argon2id, in the PHC string form */
  password_hash: string;
  account_name: string | null;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** D25.6: a request's answer kept under its Idempotency-Key for 24 hours (2xx answers only). */
export interface IdempotencyKeysTable {
  account_id: number;
  key: string;
  /** SHA-256 (hex) of the method, the path and the body as canonical JSON */
  fingerprint: string;
  status_code: number;
  response_body: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}
