import { describe, expect, it } from 'vitest';
import { erasureValue } from './suppression.ts';

describe('erasureValue (D21)', () => {
  it('is `sha256:` and the hex SHA-256 of the lower-cased, trimmed address (as sha256sum prints it)', () => {
    const expected = 'sha256:71d4f55f72fa128dfb468a1a3901507c804b74316488744d769d7f4b16696476';
    expect(erasureValue('ann@example.com')).toBe(expected);
    expect(erasureValue('  Ann@Example.COM ')).toBe(expected);
  });

  it('is no address: it can never match an address or @domain entry', () => {
    expect(erasureValue('ann@example.com')).not.toContain('@');
    expect(erasureValue('bob@example.com')).not.toBe(erasureValue('ann@example.com'));
  });
});
