import type { ActingContext } from '../shared/actor.ts';
import type { Db, DbHandle } from '../../db/connect.ts';
import { lockAccount } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../shared/errors.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { toApiTimestamp } from '../shared/time.ts';
import type { Member } from './invitation.ts';
import { isRole, mayChangeRole, permissionsOf, reachOf, type Reach, type Role } from './roles.ts';
import * as repo from './members.repo.ts';

/** Who asks (D24.1): its reach over members, and its user (null for a key). */
export interface MemberCaller {
  reach: Reach;
  userId: number | null;
}

export const memberNotFound = () => new NotFoundError('MEMBER_NOT_FOUND', 'no member of this account has this id');
export const beyondReach = (what: string) => new ForbiddenError('PERMISSION_DENIED', `${what}: only an owner may make, demote, remove or invite owners, and only owners and admins manage members`);
const lastOwner = () => new ConflictError('LAST_OWNER', 'this is the account\'s last owner: make another member owner first (an account always keeps an owner)');

/**
 * The caller's reach as of this transaction, the account's row held: a session's user is read
 * again, so a demotion or removal committed while its request waited for the lock counts.
 */
export async function reachNow(trx: Db, accountId: number, caller: MemberCaller): Promise<Reach> {
  if (caller.userId === null) return caller.reach;
  const me = await repo.findMember(trx, accountId, caller.userId);
  return me ? reachOf(roleOf(me.role), permissionsOf(roleOf(me.role))) : 'none';
}

type MemberRow = NonNullable<Awaited<ReturnType<typeof repo.findMember>>>;

/** A role the code does not know (a hand-edited row) reads as the least one, as for sessions. */
export const roleOf = (value: string): Role => (isRole(value) ? value : 'viewer');

function toMember(row: MemberRow): Member {
  return {
    id: Number(row.id),
    email: row.email,
    role: roleOf(row.role),
    two_factor: row.totp_enabled_at !== null,
    last_sign_in_at: row.last_sign_in_at === null ? null : toApiTimestamp(row.last_sign_in_at),
    created_at: toApiTimestamp(row.created_at),
  };
}

/**
 * D24.2: an account's members (its dashboard users): listed by anyone of it, their roles changed
 * and members removed within the caller's reach (roles.ts). The account always keeps an owner:
 * reach is judged first (403), then the last owner (409 LAST_OWNER), the rule also standing in the
 * write's WHERE while the account's row is held, so two demotions at once cannot both pass. A role
 * change and a removal apply to live sessions at once: each request reads its user's role, and a
 * removed user's sessions go with it.
 */
export class MemberService {
  constructor(private readonly handle: DbHandle) {}

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageMembers(this.handle.db, accountId, page);
    return toPage('members', rows.map(toMember), total, page);
  }

  async changeRole(acting: ActingContext, accountId: number, caller: MemberCaller, memberId: number, role: Role): Promise<Member> {
    return this.handle.db.transaction().execute(async (trx) => {
      if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
      const row = await repo.findMember(trx, accountId, memberId);
      if (!row) throw memberNotFound();
      const current = roleOf(row.role);
      if (!mayChangeRole(await reachNow(trx, accountId, caller), current, role)) throw beyondReach(`changing a member from ${current} to ${role}`);
      if (current === role) return toMember(row);
      if (!(await repo.updateRoleKeepingAnOwner(trx, accountId, memberId, role))) throw lastOwner();
      await recordAudit(trx, acting, accountId, 'member.role_changed', { type: 'user', id: memberId });
      return { ...toMember(row), role };
    });
  }

  async remove(acting: ActingContext, accountId: number, caller: MemberCaller, memberId: number): Promise<Member> {
    return this.handle.db.transaction().execute(async (trx) => {
      if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
      const row = await repo.findMember(trx, accountId, memberId);
      if (!row) throw memberNotFound();
      if (!mayChangeRole(await reachNow(trx, accountId, caller), roleOf(row.role), null)) throw beyondReach(`removing a member who is ${roleOf(row.role)}`);
      // Its sessions go by cascade in the same statement: its cookie is refused from the next request.
      if (!(await repo.deleteMemberKeepingAnOwner(trx, accountId, memberId))) throw lastOwner();
      await recordAudit(trx, acting, accountId, 'member.removed', { type: 'user', id: memberId });
      return toMember(row);
    });
  }
}
