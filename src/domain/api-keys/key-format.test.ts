import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generateKey, hasValidChecksum, hashKey, maskKey } from './key-format.ts';

describe('API key format (D9)', () => {
  it('is sw_ + 32 base62 characters + a 6-character checksum', () => {
    const key = generateKey();
    expect(key).toMatch(/^sw_[0-9A-Za-z]{38}$/);
    expect(hasValidChecksum(key)).toBe(true);
  });

  it('uses the CRC32 of everything before the checksum, in base62 left-padded to 6', () => {
    const key = generateKey();
    const body = key.slice(0, -6);
    let n = crc32(body);
    let digits = '';
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    do {
      digits = alphabet[n % 62] + digits;
      n = Math.floor(n / 62);
    } while (n > 0);
    expect(key.slice(-6)).toBe(digits.padStart(6, '0'));
  });

  it('rejects a key with one character changed, a wrong prefix or a short body', () => {
    const key = generateKey();
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(hasValidChecksum(flipped)).toBe(false);
    expect(hasValidChecksum('xx_' + key.slice(3))).toBe(false);
    expect(hasValidChecksum(key.slice(0, 20))).toBe(false);
    expect(hasValidChecksum('')).toBe(false);
  });

  it('masks as the first 7 and last 4 characters joined by ...', () => {
    const key = generateKey();
    expect(maskKey(key)).toBe(`${key.slice(0, 7)}...${key.slice(-4)}`);
  });

  it('hashes with SHA-256 hex', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
