/**
 * D24.7: single sign-on that fails ends on `/login?error=<code>`; the page says what happened in
 * words. Codes this list does not know still get a sentence, with the code for the operator.
 */
const MESSAGES: Record<string, string> = {
  NO_ACCOUNT: 'No Sendwell user or pending invitation has this address. Ask an admin of your account to invite you.',
  USER_NOT_FOUND: 'No Sendwell user or pending invitation has this address. Ask an admin of your account to invite you.',
  EMAIL_NOT_VERIFIED: 'Your identity provider has not verified this e-mail address.',
  INVALID_STATE: 'The sign-in took too long or was started in another window. Try again.',
  INVALID_TOKEN: 'The identity provider’s answer could not be checked. Try again, or sign in with your password.',
  SSO_NOT_CONFIGURED: 'Single sign-on is not set up on this instance.',
  SSO_FAILED: 'Single sign-on did not complete. Try again, or sign in with your password.',
};

export function signInErrorText(code: string): string {
  const known = MESSAGES[code.toUpperCase()];
  return known ?? `Single sign-on did not complete (${code}). Try again, or sign in with your password.`;
}
