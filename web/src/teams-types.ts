/**
 * D24.2/D24.3's shapes, written from ../shared/spec/DECISIONS.md while the members branch that
 * serves them has not reached the OpenAPI document. Once `npm run
 * client:generate` knows them, api.ts takes them from the generated client and this file goes.
 */
import type { Role } from './permissions.ts';

/** D24.2 */
export interface Member {
  id: number;
  email: string;
  role: Role;
  two_factor: boolean;
  last_sign_in_at: string | null;
  created_at: string;
}

/** D24.3: a pending invitation. */
export interface Invitation {
  id: number;
  email: string;
  role: Role;
  /** the inviting member's id; null when an API key invited or that member was removed */
  invited_by: number | null;
  expires_at: string;
  created_at: string;
}
