import { describe, expect, it } from 'vitest';
import { signInErrorText } from './sign-in-errors.ts';

describe('D24.7: /login?error=<code> in words', () => {
  it('words the callback’s codes', () => {
    expect(signInErrorText('sso_state')).toMatch(/Try again/);
    expect(signInErrorText('sso_no_account')).toMatch(/invite/);
    expect(signInErrorText('sso_unverified')).toMatch(/verified/);
  });
  it('still says something, with the code, for one it does not know', () => {
    expect(signInErrorText('whatever')).toContain('whatever');
  });
});
