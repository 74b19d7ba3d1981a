import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

// D9: `sw_` + at least 32 random base62 characters + a 6-character base62 CRC32 checksum of all before it.
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'sw_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_SHAPE = /^sw_[0-9A-Za-z]{38,}$/;

function base62(n: number, width: number): string {
  let out = '';
  do {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting higher bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

function checksumOf(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

export function generateKey(): string {
  const body = PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksumOf(body);
}

/** Rejects typos and guesses without touching the database. */
export function hasValidChecksum(key: string): boolean {
  if (!KEY_SHAPE.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return checksumOf(body) === key.slice(-CHECKSUM_LENGTH);
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function maskKey(key: string): string {
  return `${key.slice(0, 7)}...${key.slice(-4)}`;
}
