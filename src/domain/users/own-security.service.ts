import type { ActingContext } from '../shared/actor.ts';
import type { DbHandle } from '../../db/connect.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords.ts';
import { recordOwnAudit } from './sign-in-audit.ts';
import type { Session } from './users.service.ts';
import * as security from './security.repo.ts';
import * as repo from './users.repo.ts';

/** D24.5: one of the user's own sessions, as GET /api/v1/auth/sessions shows it. */
export interface OwnSession {
  id: string;
  created_at: string;
  last_seen_at: string | null;
  ip: string | null;
  user_agent: string | null;
  /** the session making this request */
  current: boolean;
}

const sessionNotFound = (id: string) => new NotFoundError('SESSION_NOT_FOUND', `you have no session ${id}`);

/** D24.5: what the signed-in user does about its own password and sessions. */
export class OwnSecurityService {
  constructor(private readonly handle: DbHandle) {}

  /**
   * A new password for the signed-in user: the current one must be right (400
   * INVALID_CREDENTIALS), the new one 8-256 characters (400 naming `new_password`). Every other
   * session of the user ends; this one stays.
   */
  async changePassword(acting: ActingContext, session: Session, input: { current_password: string; new_password: string }): Promise<void> {
    const row = await repo.findUserById(this.handle.db, session.user.id);
    if (!row || !(await verifyPassword(row.password_hash, input.current_password))) throw new ValidationError('current_password is wrong', 'INVALID_CREDENTIALS');
    try {
      checkNewPassword(input.new_password);
    } catch (err) {
      if (err instanceof ValidationError) throw new ValidationError(err.message.replace(/^password/, 'new_password'));
      throw err;
    }
    const passwordHash = await hashPassword(input.new_password);
    await this.handle.db.transaction().execute(async (trx) => {
      await repo.updatePasswordHash(trx, session.user.id, passwordHash);
      await security.deleteOtherSessionsOf(trx, session.user.id, session.id);
      await recordOwnAudit(trx, acting, session.user, 'auth.password_changed');
    });
  }

  /** The user's live sessions, newest first. */
  async sessions(session: Session, page: PageRequest) {
    const [rows, total] = await security.pageSessionsOf(this.handle.db, session.user.id, nowIso(), page);
    const items: OwnSession[] = rows.map((r) => ({
      id: r.public_id,
      created_at: toApiTimestamp(r.created_at),
      last_seen_at: r.last_seen_at === null ? null : toApiTimestamp(r.last_seen_at),
      ip: r.ip,
      user_agent: r.user_agent,
      current: r.id === session.id,
    }));
    return toPage('sessions', items, Number(total.n), page);
  }

  /** Ends one of the user's sessions (this one too, if named): 404 SESSION_NOT_FOUND for another user's or an unknown id. */
  async endSession(acting: ActingContext, session: Session, publicId: string): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      if (!(await security.deleteSessionOf(trx, session.user.id, publicId))) throw sessionNotFound(publicId);
      await recordOwnAudit(trx, acting, session.user, 'auth.session_ended', { type: 'session', id: publicId });
    });
  }
}
