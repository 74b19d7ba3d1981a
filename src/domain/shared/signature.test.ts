import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkBodySignature, safeEqual, signBody } from './signature.ts';

const body = '{"events":[]}';
const t = 1_800_000_000;
const now = t * 1000;

describe('one body signature for outbound deliveries and generic provider feedback', () => {
  it('signs as t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, which a receiver can recompute', () => {
    const v1 = createHmac('sha256', 's3cret').update(`${t}.${body}`).digest('hex');
    expect(signBody('s3cret', body, t)).toBe(`t=${t},v1=${v1}`);
  });

  it('accepts its own signature and refuses another secret or a changed body', () => {
    const header = signBody('s3cret', body, t);
    expect(checkBodySignature('s3cret', header, body, now)).toBe('valid');
    expect(checkBodySignature('other', header, body, now)).toBe('invalid');
    expect(checkBodySignature('s3cret', header, `${body} `, now)).toBe('invalid');
  });

  it('accepts any of several v1 values (secret rotation)', () => {
    const old = signBody('old', body, t).split(',')[1];
    expect(checkBodySignature('s3cret', `${signBody('s3cret', body, t)},${old}`, body, now)).toBe('valid');
    expect(checkBodySignature('old', `${signBody('s3cret', body, t)},${old}`, body, now)).toBe('valid');
  });

  it('refuses a timestamp more than 5 minutes away, a missing one, and tells an absent header apart', () => {
    const header = signBody('s3cret', body, t);
    expect(checkBodySignature('s3cret', header, body, now + 300_000)).toBe('valid');
    expect(checkBodySignature('s3cret', header, body, now + 301_000)).toBe('expired');
    expect(checkBodySignature('s3cret', header, body, now - 301_000)).toBe('expired');
    expect(checkBodySignature('s3cret', header.replace(/^t=\d+,/, ''), body, now)).toBe('invalid');
    expect(checkBodySignature('s3cret', undefined, body, now)).toBe('absent');
  });

  it('compares strings whole', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('ab', 'abc')).toBe(false);
  });
});
