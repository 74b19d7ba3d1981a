import { describe, expect, it } from 'vitest';
import { fieldWithNul } from './nul.ts';

describe('fieldWithNul', () => {
  it('is null for input without U+0000, whatever its shape', () => {
    expect(fieldWithNul({ a: 'x', b: [1, 'y', { c: null, d: true }], e: {} }, 'body')).toBeNull();
    expect(fieldWithNul('plain', 'body')).toBeNull();
    expect(fieldWithNul(undefined, 'body')).toBeNull();
  });

  it('names the first string holding U+0000, in arrays and nested objects', () => {
    expect(fieldWithNul({ tags: ['ok', 'b\u0000d'] }, 'body')).toBe('body/tags/1');
    expect(fieldWithNul({ custom_fields: { city: { name: '\u0000' } } }, 'body')).toBe('body/custom_fields/city/name');
    expect(fieldWithNul('a\u0000', 'params')).toBe('params');
  });

  it('names the object whose key holds U+0000', () => {
    expect(fieldWithNul({ custom_fields: { 'k\u0000': 1 } }, 'body')).toBe('body/custom_fields');
  });
});
