import { describe, expect, it } from 'vitest';
import { permissionsOf, type Role } from '../../src/domain/users/roles.ts';
import { assignableRoles, can, mayManage, reach } from './permissions.ts';

const as = (role: Role) => ({ user: { role }, permissions: [...permissionsOf(role)] });

describe('D24.9: the dashboard offers what a role may do', () => {
  it('a viewer reads but may not send, write or delete', () => {
    expect(can(as('viewer'), 'campaigns.read')).toBe(true);
    expect(can(as('viewer'), 'campaigns.send')).toBe(false);
    expect(can(as('viewer'), 'campaigns.write')).toBe(false);
    expect(can(as('viewer'), 'contacts.delete')).toBe(false);
    expect(can(as('viewer'), '*')).toBe(false);
  });

  it('an author writes drafts but never sends and administers nothing', () => {
    expect(can(as('author'), 'campaigns.write')).toBe(true);
    expect(can(as('author'), 'automation.write')).toBe(true);
    expect(can(as('author'), 'campaigns.send')).toBe(false);
    expect(can(as('author'), '*')).toBe(false);
    expect(reach(as('author'))).toBe('none');
  });

  it('a manager sends but does not administer keys or members', () => {
    expect(can(as('manager'), 'campaigns.send')).toBe(true);
    expect(can(as('manager'), 'contacts.delete')).toBe(true);
    expect(can(as('manager'), '*')).toBe(false);
    expect(assignableRoles(as('manager'))).toEqual([]);
  });

  it('admins and owners hold everything; only owners make or touch owners', () => {
    for (const role of ['admin', 'owner'] as const) {
      expect(can(as(role), 'campaigns.send')).toBe(true);
      expect(can(as(role), '*')).toBe(true);
    }
    expect(assignableRoles(as('admin'))).toEqual(['admin', 'manager', 'author', 'viewer']);
    expect(assignableRoles(as('owner'))).toEqual(['owner', 'admin', 'manager', 'author', 'viewer']);
    expect(mayManage(as('admin'), 'owner', 'viewer')).toBe(false);
    expect(mayManage(as('admin'), 'manager', null)).toBe(true);
    expect(mayManage(as('owner'), 'owner', null)).toBe(true);
  });

  it('no session, or an unknown role, may do nothing', () => {
    expect(can(null, 'campaigns.read')).toBe(false);
    expect(reach({ user: { role: 'root' }, permissions: ['*'] })).toBe('none');
  });
});
