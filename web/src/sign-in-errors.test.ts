import { describe, expect, it } from 'vitest';
import { signInErrorText } from './sign-in-errors.ts';

describe('D24.7: /login?error=<code> in words', () => {
  it('words a known code', () => {
    expect(signInErrorText('invalid_state')).toMatch(/Try again/);
    expect(signInErrorText('NO_ACCOUNT')).toMatch(/invite/);
  });
  it('still says something, with the code, for one it does not know', () => {
    expect(signInErrorText('WHATEVER')).toContain('WHATEVER');
  });
});
