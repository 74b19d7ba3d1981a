/**
 * D24.7: why an SSO sign-in ended without a session; the callback redirects to
 * `/login?error=<code>` and the sign-in page shows a message for each. Pure: the API's document
 * and the dashboard read it.
 */
export const SSO_ERRORS = {
  /** the sign-in state cookie is missing, expired or altered, or `state` does not match it */
  sso_state: 'the sign-in took too long or was started elsewhere; try again',
  /** the provider refused, or its answer failed a check (ID token signature, iss, aud, exp, nonce; PKCE) */
  sso_failed: 'single sign-on failed; try again or sign in with your password',
  /** the provider's discovery document could not be fetched */
  sso_unavailable: 'the single sign-on provider cannot be reached; try again later',
  /** the ID token's `email_verified` is not true, or it has no `email` */
  sso_unverified: 'your provider has not verified your e-mail address',
  /** the address is no user and has no pending invitation */
  sso_no_account: 'no account here has this e-mail address; ask an admin for an invitation',
} as const;
export type SsoError = keyof typeof SSO_ERRORS;
