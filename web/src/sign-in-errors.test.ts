import { describe, expect, it } from 'vitest';
import { SSO_ERRORS } from '../../src/domain/users/sso-errors.ts';
import { signInErrorText } from './sign-in-errors.ts';

describe('D24.7: /login?error=<code> in words', () => {
  it('words every code the callback sends, as a sentence', () => {
    for (const code of Object.keys(SSO_ERRORS)) expect(signInErrorText(code)).toMatch(/^[A-Z].*\.$/);
    expect(signInErrorText('sso_no_account')).toMatch(/^No account here has this e-mail address/);
  });
  it('still says something, with the code, for one it does not know (nor an inherited name)', () => {
    expect(signInErrorText('whatever')).toContain('whatever');
    expect(signInErrorText('constructor')).toContain('(constructor)');
  });
});
