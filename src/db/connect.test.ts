import { describe, expect, it } from 'vitest';
import { withoutJit } from './connect.ts';

describe('withoutJit: PostgreSQL sessions start without JIT compiling', () => {
  it('adds the option to a URL without options', () => {
    expect(new URL(withoutJit('postgres://u:p@db:5432/sendwell')).searchParams.get('options')).toBe('-c jit=off');
  });

  it("keeps the operator's own options and credentials", () => {
    const url = new URL(withoutJit('postgres://u:s%40cret@db/sendwell?options=-c%20search_path%3Dtenant&sslmode=require'));
    expect(url.searchParams.get('options')).toBe('-c search_path=tenant -c jit=off');
    expect(url.searchParams.get('sslmode')).toBe('require');
    expect(url.password).toBe('s%40cret');
  });

  it('leaves a URL that already sets jit, or is not a URL, as it is', () => {
    expect(withoutJit('postgres://db/sendwell?options=-c%20jit%3Don')).toBe('postgres://db/sendwell?options=-c%20jit%3Don');
    expect(withoutJit('host=db dbname=sendwell')).toBe('host=db dbname=sendwell');
  });
});
