import type { Role } from './roles.ts';

/**
 * D24.2 and D24.3: a member of an account and an invitation to become one, as the API shows them.
 * Pure: the schemas and the dashboard import it.
 */

/** D24.3: an invitation's link works 7 days from when it was sent (or last resent). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** PENDING until accepted or revoked; the API lists and acts on pending ones only. */
export const INVITATION_STATUSES = ['PENDING', 'ACCEPTED', 'REVOKED'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** D24.2: a member's id is its user's id. */
export interface Member {
  id: number;
  email: string;
  role: Role;
  /** whether the member signs in with a second factor (D24.6) */
  two_factor: boolean;
  last_sign_in_at: string | null;
  created_at: string;
}

export interface Invitation {
  id: number;
  email: string;
  role: Role;
  /** the inviting user's id; null when a key invited, or once the inviting user was removed */
  invited_by: number | null;
  expires_at: string;
  created_at: string;
}
