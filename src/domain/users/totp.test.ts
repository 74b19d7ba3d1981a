import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { codeForStep, matchingSteps, newTotpSecret, otpauthUrl, stepAt } from './totp.ts';

// RFC 6238 appendix B: the SHA-1 secret "12345678901234567890", 8 digits there; 6 digits are its last six.
const RFC_SECRET = new Secret({ buffer: new TextEncoder().encode('12345678901234567890').buffer as ArrayBuffer }).base32;

describe('TOTP (D24.6: RFC 6238, SHA-1, 6 digits, 30 s, one step of drift)', () => {
  it("matches RFC 6238's test vectors (last six digits)", () => {
    expect(codeForStep(RFC_SECRET, stepAt(59_000))).toBe('287082');
    expect(codeForStep(RFC_SECRET, stepAt(1_111_111_109_000))).toBe('081804');
    expect(codeForStep(RFC_SECRET, stepAt(20_000_000_000_000))).toBe('353130');
  });

  it('accepts the codes of the step before, the current one and the one after; refuses two steps away', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    const step = stepAt(now);
    expect(matchingSteps(secret, codeForStep(secret, step), now)).toContain(step);
    expect(matchingSteps(secret, codeForStep(secret, step - 1), now)).toContain(step - 1);
    expect(matchingSteps(secret, codeForStep(secret, step + 1), now)).toContain(step + 1);
    for (const far of [step - 2, step + 2]) {
      const code = codeForStep(secret, far);
      // A far step's code may equal a near one's by chance (1 in a million); then it is that step that matches.
      expect(matchingSteps(secret, code, now)).not.toContain(far);
    }
  });

  it('agrees with otpauth itself at a chosen time, and refuses malformed codes', () => {
    const secret = newTotpSecret();
    const at = 1_700_000_012_345;
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
    expect(matchingSteps(secret, code, at)).toEqual([stepAt(at)]);
    expect(matchingSteps(secret, `${code.slice(0, 3)} ${code.slice(3)}`, at)).toEqual([stepAt(at)]);
    for (const bad of ['', '12345', '1234567', 'abcdef', `${code}0`]) expect(matchingSteps(secret, bad, at)).toEqual([]);
  });

  it('makes 160-bit base32 secrets and an otpauth URL naming Sendwell and the e-mail', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const url = new URL(otpauthUrl(secret, 'ada@example.com'));
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe('/Sendwell:ada@example.com');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ secret, issuer: 'Sendwell', algorithm: 'SHA1', digits: '6', period: '30' });
  });
});
