import { PERMISSIONS, type Permission } from '../api-keys/permissions.ts';

/**
 * D24.1: a dashboard user's role, and what it may do in the spec's permission names, so one
 * permission check (permissions.ts `grants`) serves keys and sessions alike. Pure: the schemas and
 * the dashboard import it.
 */
export const ROLES = ['owner', 'admin', 'manager', 'author', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

const VIEWER: readonly Permission[] = ['contacts.read', 'lists.read', 'campaigns.read', 'automation.read'];
// Drafts and workflows, never a send: a workflow with SEND_EMAIL also needs campaigns.send (caller.ts).
const AUTHOR: readonly Permission[] = [...VIEWER, 'campaigns.write', 'automation.write'];
const MANAGER: readonly Permission[] = PERMISSIONS.filter((p) => p !== '*');

// Built once: every session request asks for its role's set.
const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  viewer: new Set(VIEWER),
  author: new Set(AUTHOR),
  manager: new Set(MANAGER),
  admin: new Set(['*']),
  owner: new Set(['*']),
};

/** The permissions a session of this role holds (shared: never changed by a caller). */
export function permissionsOf(role: Role): ReadonlySet<Permission> {
  return ROLE_PERMISSIONS[role];
}

/**
 * Who may manage members and invitations (D24.2, D24.3): owners reach anyone and any role;
 * admins (and keys with `*`, which have an admin's reach) reach non-owners, and only to
 * non-owner roles. Everyone else reaches nobody.
 */
export type Reach = 'owner' | 'admin' | 'none';

export function reachOf(role: Role | null, permissions: ReadonlySet<string>): Reach {
  if (role === 'owner') return 'owner';
  if (role === 'admin') return 'admin';
  // A key (no role) with `*`: an admin's reach, never an owner's.
  if (role === null && permissions.has('*')) return 'admin';
  return 'none';
}

/** Whether `reach` may act on a member whose role is `current` (null: a new member) and give it `next` (null: remove it). */
export function mayChangeRole(reach: Reach, current: Role | null, next: Role | null): boolean {
  if (reach === 'owner') return true;
  if (reach === 'none') return false;
  return current !== 'owner' && next !== 'owner';
}
