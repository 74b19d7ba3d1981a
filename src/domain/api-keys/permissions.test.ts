import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from './permissions.ts';

describe('the permission table (spec "API key")', () => {
  // The one literal copy of the spec's table: the HTTP suites build their keys from PERMISSIONS.
  it("holds exactly the spec's permissions, in the spec's order, `*` last", () => {
    expect([...PERMISSIONS]).toEqual([
      ...['contacts.read', 'contacts.write', 'contacts.delete'],
      ...['lists.read', 'lists.write'],
      ...['campaigns.read', 'campaigns.write', 'campaigns.send'],
      ...['automation.read', 'automation.write'],
      '*',
    ]);
  });
});
