import { describe, expect, it } from 'vitest';
import { canonicalJson, isValidKey, requestFingerprint } from './idempotency.ts';

describe('D25.6 Idempotency-Key, the pure part', () => {
  it('takes 1-255 printable ASCII characters and nothing else', () => {
    expect(isValidKey('a')).toBe(true);
    expect(isValidKey('x'.repeat(255))).toBe(true);
    expect(isValidKey('order 42 / retry ~!')).toBe(true);
    expect(isValidKey('')).toBe(false);
    expect(isValidKey('x'.repeat(256))).toBe(false);
    expect(isValidKey('tab\there')).toBe(false);
    expect(isValidKey('del\x7f')).toBe(false);
    expect(isValidKey('clé')).toBe(false);
  });

  it('writes JSON with sorted keys and no spacing, at any depth', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }, true] })).toBe('{"a":[{"c":"x","d":null},true],"b":1}');
    expect(canonicalJson(undefined)).toBe('');
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe(JSON.stringify({ b: [null] }));
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000));
    expect(canonicalJson(deep)).toHaveLength(400_000);
  });

  it('gives equal requests one fingerprint and any difference of method, path or body another', () => {
    const one = requestFingerprint('POST', '/api/v1/contacts', { email: 'a@example.com', tags: ['x'] });
    expect(requestFingerprint('post', '/api/v1/contacts', JSON.parse('{ "tags": ["x"], "email": "a@example.com" }'))).toBe(one);
    expect(requestFingerprint('POST', '/api/v1/lists', { email: 'a@example.com', tags: ['x'] })).not.toBe(one);
    expect(requestFingerprint('PUT', '/api/v1/contacts', { email: 'a@example.com', tags: ['x'] })).not.toBe(one);
    expect(requestFingerprint('POST', '/api/v1/contacts', { email: 'a@example.com', tags: ['y'] })).not.toBe(one);
    expect(requestFingerprint('POST', '/api/v1/contacts', undefined)).not.toBe(requestFingerprint('POST', '/api/v1/contacts', {}));
  });
});
