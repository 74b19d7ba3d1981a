import { createHash, randomInt } from 'node:crypto';

/**
 * D24.6: recovery codes, for a sign-in without the authenticator. Ten, shown once; stored only as
 * SHA-256 (each carries 50 random bits, so a slow hash would add nothing against guessing while
 * the sign-in throttle limits tries). Written `xxxxx-xxxxx` in an alphabet without look-alikes;
 * read back case-insensitively, with or without the dash and spaces.
 */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const GROUP = 5;

function group(): string {
  let out = '';
  for (let i = 0; i < GROUP; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(`${group()}-${group()}`);
  return [...codes];
}

/** The code as typed, reduced to its characters: what is hashed. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

export function recoveryCodeHash(code: string): string {
  return createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');
}
