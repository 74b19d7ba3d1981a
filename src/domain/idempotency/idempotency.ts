import { createHash } from 'node:crypto';

/**
 * D25.6, the pure part: what a valid Idempotency-Key is, how long an answer is kept, and the
 * fingerprint that tells "the same request again" from "another request with the same key".
 */

/** An answer is kept, and replayed, for this long after the request succeeded. */
export const KEPT_FOR_MS = 24 * 60 * 60 * 1000;
export const MAX_KEY_LENGTH = 255;

/** 1-255 printable ASCII characters (U+0020-U+007E). */
export function isValidKey(key: string): boolean {
  return key.length >= 1 && key.length <= MAX_KEY_LENGTH && /^[\x20-\x7e]+$/.test(key);
}

class Literal {
  constructor(readonly text: string) {}
}

/**
 * Feeds `value` as canonical JSON to `write`: object keys sorted, no spacing, so two bodies equal
 * as JSON give the same text whatever their key order and spacing. Iterative, so a body nested
 * a million levels deep (1 MiB of `[`) costs its size and no stack.
 */
export function writeCanonicalJson(value: unknown, write: (text: string) => void): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Literal) {
      write(item.text);
    } else if (item === null || typeof item !== 'object') {
      // undefined (no body at all) is written as nothing, unlike any JSON value
      write(item === undefined ? '' : JSON.stringify(item));
    } else if (Array.isArray(item)) {
      stack.push(new Literal(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i] === undefined ? null : item[i]);
        if (i > 0) stack.push(new Literal(','));
      }
      stack.push(new Literal('['));
    } else {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort();
      stack.push(new Literal('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(record[keys[i]]);
        stack.push(new Literal(`${JSON.stringify(keys[i])}:`));
        if (i > 0) stack.push(new Literal(','));
      }
      stack.push(new Literal('{'));
    }
  }
}

export function canonicalJson(value: unknown): string {
  let text = '';
  writeCanonicalJson(value, (piece) => (text += piece));
  return text;
}

/** SHA-256 (hex) of the method, the path as sent (with its query) and the body as canonical JSON. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  const hash = createHash('sha256');
  hash.update(`${method.toUpperCase()} ${path}\n`);
  writeCanonicalJson(body, (piece) => hash.update(piece));
  return hash.digest('hex');
}
