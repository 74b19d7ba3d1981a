import { describe, expect, it } from 'vitest';
import { newCsrfToken, newSessionToken, sameSecret, sessionIdOf } from './session-token.ts';

describe('session tokens', () => {
  it('are random and stored only as their SHA-256', () => {
    const a = newSessionToken();
    const b = newSessionToken();
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(43);
    expect(sessionIdOf(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(sessionIdOf(a)).not.toContain(a);
    expect(sessionIdOf(a)).toBe(sessionIdOf(a));
    expect(sessionIdOf(a)).not.toBe(sessionIdOf(b));
  });

  it('compare CSRF tokens exactly', () => {
    const t = newCsrfToken();
    expect(sameSecret(t, t)).toBe(true);
    expect(sameSecret(t.slice(1), t)).toBe(false);
    expect(sameSecret(t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A'), t)).toBe(false);
    expect(sameSecret('', t)).toBe(false);
  });
});
