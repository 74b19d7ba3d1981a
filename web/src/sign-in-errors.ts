import { SSO_ERRORS } from '../../src/domain/users/sso-errors.ts';

/**
 * D24.7: single sign-on that fails ends on `/login?error=<code>`; the page says what happened in
 * the callback's own words (sso-errors.ts). A code it does not know still gets a sentence, with
 * the code for the operator.
 */
export function signInErrorText(code: string): string {
  const words = Object.hasOwn(SSO_ERRORS, code) ? SSO_ERRORS[code as keyof typeof SSO_ERRORS] : null;
  if (words) return words[0].toUpperCase() + words.slice(1) + '.';
  return `Single sign-on did not complete (${code}). Try again, or sign in with your password.`;
}
