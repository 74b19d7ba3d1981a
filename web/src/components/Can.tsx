import type { ReactNode } from 'react';
import { can, type Permission } from '../permissions.ts';
import { useSession } from '../session.tsx';

/** D24.9: shows its children only to a role holding `need`: what a role cannot use is not offered. */
export function Can({ need, children }: { need: Permission; children: ReactNode }) {
  const { session } = useSession();
  return can(session, need) ? <>{children}</> : null;
}
