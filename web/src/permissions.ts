/**
 * D24.1/D24.9: what the signed-in user's role may do, so pages offer only what the server would
 * allow. The same rules as the server's (the permission check `grants`, the reach over members
 * `reachOf` / `mayChangeRole`): imported, not copied. The server still judges every request.
 */
import { grants, type Permission } from '../../src/domain/api-keys/permissions.ts';
import { isRole, mayChangeRole, reachOf, ROLES, type Reach, type Role } from '../../src/domain/users/roles.ts';

export { ROLES, type Permission, type Role };

/** The part of the session these rules read: `/api/v1/auth/me`'s role and permissions. */
export interface Grants {
  user: { role: string };
  permissions: readonly string[];
}

/** Whether the session's role holds `permission` (`*`: everything, API keys and members included). */
export function can(session: Grants | null | undefined, permission: Permission): boolean {
  if (!session) return false;
  return grants(new Set(session.permissions), [permission]);
}

/** D24.2/D24.3: how far the user reaches over members and invitations. */
export function reach(session: Grants | null | undefined): Reach {
  if (!session || !isRole(session.user.role)) return 'none';
  return reachOf(session.user.role, new Set(session.permissions));
}

/** Whether the user may give a member of role `current` the role `next` (null: remove it; current null: invite). */
export function mayManage(session: Grants | null | undefined, current: Role | null, next: Role | null): boolean {
  const r = reach(session);
  return r !== 'none' && mayChangeRole(r, current, next);
}

/** The roles the user may hand out (invite with, or change a member to): an admin never makes owners. */
export function assignableRoles(session: Grants | null | undefined): Role[] {
  return ROLES.filter((role) => mayManage(session, null, role));
}

/** A role in words, as the dashboard shows it. */
export const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', manager: 'Manager', author: 'Author', viewer: 'Viewer' };
