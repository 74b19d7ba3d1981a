import { describe, expect, it } from 'vitest';
import { grants, type Permission } from '../api-keys/permissions.ts';
import { mayChangeRole, permissionsOf, reachOf, ROLES, type Reach, type Role } from './roles.ts';

// D24.1: the role table, one row per role and permission.
const ALLOWED: Record<Role, Permission[]> = {
  viewer: ['contacts.read', 'lists.read', 'campaigns.read', 'automation.read'],
  author: ['contacts.read', 'lists.read', 'campaigns.read', 'automation.read', 'campaigns.write', 'automation.write'],
  manager: ['contacts.read', 'contacts.write', 'contacts.delete', 'lists.read', 'lists.write', 'campaigns.read', 'campaigns.write', 'campaigns.send', 'automation.read', 'automation.write'],
  admin: ['contacts.read', 'contacts.write', 'contacts.delete', 'lists.read', 'lists.write', 'campaigns.read', 'campaigns.write', 'campaigns.send', 'automation.read', 'automation.write', '*'],
  owner: ['contacts.read', 'contacts.write', 'contacts.delete', 'lists.read', 'lists.write', 'campaigns.read', 'campaigns.write', 'campaigns.send', 'automation.read', 'automation.write', '*'],
};
const EVERY: Permission[] = ['contacts.read', 'contacts.write', 'contacts.delete', 'lists.read', 'lists.write', 'campaigns.read', 'campaigns.write', 'campaigns.send', 'automation.read', 'automation.write', '*'];

describe('D24.1 role permissions', () => {
  for (const role of ROLES) {
    for (const permission of EVERY) {
      const allowed = ALLOWED[role].includes(permission);
      it(`${role} ${allowed ? 'holds' : 'lacks'} ${permission}`, () => {
        expect(grants(permissionsOf(role), [permission])).toBe(allowed);
      });
    }
  }
});

describe('D24.2 reach over members', () => {
  it('owners reach owners; admins and `*` keys reach only non-owners; others nobody', () => {
    expect(reachOf('owner', permissionsOf('owner'))).toBe('owner');
    expect(reachOf('admin', permissionsOf('admin'))).toBe('admin');
    expect(reachOf(null, new Set(['*']))).toBe('admin');
    expect(reachOf(null, new Set(['contacts.read']))).toBe('none');
    expect(reachOf('manager', permissionsOf('manager'))).toBe('none');
  });
  const table: [Reach, Role | null, Role | null, boolean][] = [
    ['owner', 'owner', 'viewer', true],
    ['owner', null, 'owner', true],
    ['owner', 'admin', null, true],
    ['admin', 'viewer', 'manager', true],
    ['admin', 'manager', 'admin', true],
    ['admin', null, 'author', true],
    ['admin', 'author', null, true],
    ['admin', 'owner', 'viewer', false],
    ['admin', 'admin', 'owner', false],
    ['admin', null, 'owner', false],
    ['admin', 'owner', null, false],
    ['none', 'viewer', 'author', false],
    ['none', null, 'viewer', false],
  ];
  for (const [reach, current, next, expected] of table) {
    it(`${reach} reach: ${current ?? 'new'} -> ${next ?? 'removed'} is ${expected ? 'allowed' : 'refused'}`, () => {
      expect(mayChangeRole(reach, current, next)).toBe(expected);
    });
  }
});
