/** The spec's permission table. `*` grants every permission. */
export const PERMISSIONS = [
  'contacts.read',
  'contacts.write',
  'contacts.delete',
  'lists.read',
  'lists.write',
  'campaigns.read',
  'campaigns.write',
  'campaigns.send',
  'automation.read',
  'automation.write',
  '*',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

export function grants(held: ReadonlySet<string>, required: readonly Permission[]): boolean {
  if (held.has('*')) return true;
  return required.every((p) => held.has(p));
}
