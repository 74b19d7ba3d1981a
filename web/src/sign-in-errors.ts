/**
 * D24.7: single sign-on that fails ends on `/login?error=<code>`; the page says what happened in
 * words. The codes are the SSO callback's (src/domain/users/sso-errors.ts on the oidc branch);
 * one this list does not know still gets a sentence, with the code for the operator.
 */
const MESSAGES: Record<string, string> = {
  sso_state: 'The sign-in took too long or was started in another window. Try again.',
  sso_failed: 'Single sign-on did not complete. Try again, or sign in with your password.',
  sso_unavailable: 'The single sign-on provider cannot be reached. Try again later, or sign in with your password.',
  sso_unverified: 'Your identity provider has not verified your e-mail address.',
  sso_no_account: 'No Sendwell user or pending invitation has this e-mail address. Ask an admin of your account to invite you.',
};

export function signInErrorText(code: string): string {
  return MESSAGES[code.toLowerCase()] ?? `Single sign-on did not complete (${code}). Try again, or sign in with your password.`;
}
