/**
 * D24's shapes, written from ../shared/spec/DECISIONS.md while the API branches that serve them
 * (members, security, oidc, audit) have not reached the OpenAPI document. Once `npm run
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

/** D24.5: one of the user's own sessions. */
export interface UserSession {
  id: string | number;
  created_at: string;
  last_seen_at: string | null;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

/** D24.6 */
export interface TotpSetup {
  secret: string;
  otpauth_url: string;
}

/** D24.6: a right password of a user with two-factor sign-in: no session yet. */
export interface TwoFactorChallenge {
  two_factor_required: true;
  challenge: string;
}
