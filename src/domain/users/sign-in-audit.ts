import type { Db } from '../../db/connect.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { AuditAction, AuditTarget } from '../audit/audit-entry.ts';
import type { ActingContext, Actor } from '../shared/actor.ts';
import { newSessionToken, sessionIdOf } from './session-token.ts';
import * as security from './security.repo.ts';

/**
 * D24.8 for the sign-in routes, which are public (no actor yet): the entry names the user the
 * service has identified, by id and e-mail. Never the password, code or token tried.
 */
export interface Identified {
  id: number;
  account_id: number;
  email: string;
}

export const userActor = (user: Identified): Actor => ({ type: 'user', id: String(user.id), label: user.email });

/** An entry made by the user, about itself unless `target` says otherwise (sign-in, its failure, a reset, own security). */
export function recordOwnAudit(db: Db, acting: ActingContext, user: Identified, action: AuditAction, target: AuditTarget = { type: 'user', id: user.id }): Promise<void> {
  return recordAudit(db, acting, Number(user.account_id), action, target, userActor(user));
}

/** D24.6: how long the challenge between a right password and its code lives. */
export const TOTP_CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** D24.6: a right password of a user with two-factor: a random challenge, stored as its SHA-256 only. */
export async function openTotpChallenge(db: Db, userId: number, now = Date.now()): Promise<string> {
  const token = newSessionToken();
  await security.deleteExpiredTotpChallenges(db, new Date(now).toISOString());
  await security.insertTotpChallenge(db, {
    token_hash: sessionIdOf(token),
    user_id: userId,
    expires_at: new Date(now + TOTP_CHALLENGE_TTL_MS).toISOString(),
    created_at: new Date(now).toISOString(),
  });
  return token;
}
