import { describe, expect, it } from 'vitest';
import { newRecoveryCodes, recoveryCodeHash, RECOVERY_CODE_COUNT } from './recovery-codes.ts';

describe('recovery codes (D24.6)', () => {
  it('makes ten distinct codes of two groups of five', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(newRecoveryCodes()).not.toEqual(codes);
  });

  it('hashes a code the same however it is typed, and differently from any other code', () => {
    const [a, b] = newRecoveryCodes(2);
    expect(recoveryCodeHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(recoveryCodeHash(a.toUpperCase())).toBe(recoveryCodeHash(a));
    expect(recoveryCodeHash(` ${a.replace('-', '')} `)).toBe(recoveryCodeHash(a));
    expect(recoveryCodeHash(b)).not.toBe(recoveryCodeHash(a));
  });
});
