import { describe, expect, it } from 'vitest';
import { jsonPathTest } from './segments.repo.ts';

describe('jsonPathTest: a custom-field comparison as an SQL/JSON path (D18, PostgreSQL)', () => {
  it('writes the key quoted and the value as JSON', () => {
    expect(jsonPathTest('seats', '>=', 10)).toBe('$."seats" ? (@ >= 10)');
    expect(jsonPathTest('ratio', '<', -0.25)).toBe('$."ratio" ? (@ < -0.25)');
    expect(jsonPathTest('trial', '==', true)).toBe('$."trial" ? (@ == true)');
  });

  it('refuses a key outside D11 and a number that is not finite, whatever reached it', () => {
    expect(() => jsonPathTest('a") || (@ == 1', '==', 1)).toThrow(/unchecked/);
    expect(() => jsonPathTest('1abc', '==', 1)).toThrow(/unchecked/);
    expect(() => jsonPathTest('n', '>', Number.NaN)).toThrow(/finite/);
    expect(() => jsonPathTest('n', '>', Number.POSITIVE_INFINITY)).toThrow(/finite/);
  });
});
