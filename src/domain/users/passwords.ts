import { Algorithm, hash, verify } from '@node-rs/argon2';
import { ValidationError } from '../shared/errors.ts';

export const PASSWORD_LIMITS = { min: 8, max: 256 } as const;

/** Throws a ValidationError naming the field when a new password is too short or too long. */
export function checkNewPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_LIMITS.min || length > PASSWORD_LIMITS.max) {
    throw new ValidationError(`password must be ${PASSWORD_LIMITS.min}-${PASSWORD_LIMITS.max} characters`);
  }
}

/** argon2id with the library's defaults (19 MiB, 2 passes: OWASP's baseline), as a PHC string. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: Algorithm.Argon2id });
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * Checked when no user has the e-mail, so an unknown address costs as long as a wrong password
 * and the answer's timing does not reveal which addresses have accounts.
 */
let decoy: Promise<string> | null = null;
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword('decoy password that matches nothing');
  await verifyPassword(await decoy, password);
  return false;
}
