import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/** D24: invitations, password resets, two-factor sign-in and the audit log. Tokens are kept as SHA-256 only. */

export interface InvitationsTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  role: string;
  token_hash: string;
  invited_by: number | null;
  expires_at: Timestamp;
  created_at: Timestamp;
  /** PENDING | ACCEPTED | REVOKED */
  status: string;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: number;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface TotpChallengesTable {
  token_hash: string;
  user_id: number;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface RecoveryCodesTable {
  user_id: number;
  code_hash: string;
  used_at: NullableTimestamp;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: number;
  at: Timestamp;
  /** user | api_key | system */
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
}
