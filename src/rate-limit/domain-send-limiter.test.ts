import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { DomainSendLimiter } from './domain-send-limiter.ts';
import { parseDomainRates } from '../config-mail.ts';

// D23: SEND_DOMAIN_RATES, messages per second per recipient domain.
describe('parseDomainRates', () => {
  it('reads domain=rate pairs, domains lower-cased, spaces around them allowed', () => {
    expect(parseDomainRates('gmail.com=20, Outlook.COM = 10')).toEqual(new Map([['gmail.com', 20], ['outlook.com', 10]]));
  });

  it('takes unset or empty as no caps', () => {
    expect(parseDomainRates(undefined).size).toBe(0);
    expect(parseDomainRates('  ').size).toBe(0);
  });

  it.each([
    ['gmail.com', /"gmail.com" is not domain=messages per second/],
    ['gmail.com=', /is not domain=messages per second/],
    ['gmail.com=2.5', /is not domain=messages per second/],
    ['gmail.com=-1', /is not domain=messages per second/],
    ['gmail.com=0', /the rate for gmail.com must be a whole number from 1/],
    ['gmail.com=20,', /"" is not domain=messages per second/],
    ['not a domain=5', /is not domain=messages per second/],
    ['localhost=5', /"localhost" is not a domain name/],
    ['-x.com=5', /"-x.com" is not a domain name/],
    ['gmail.com=5,GMAIL.com=6', /gmail.com is given twice/],
  ])('refuses %j', (raw, reason) => {
    expect(() => parseDomainRates(raw)).toThrow(reason);
  });

  it('makes the process refuse to start with a one-line reason', () => {
    const load = () => loadConfig({ SECRET: 's', DATA_DIR: '/nonexistent-never-written', SEND_DOMAIN_RATES: 'gmail.com=fast' });
    expect(load).toThrow(/^SEND_DOMAIN_RATES must be domain=messages per second pairs .*"gmail.com=fast" is not/);
    try {
      load();
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
    }
  });
});

describe('DomainSendLimiter', () => {
  it('gives a capped domain its rate of tokens per second, then says how long to wait; other domains are not counted', async () => {
    const paced: string[] = [];
    const limiter = new DomainSendLimiter(parseDomainRates('capped.test=3'), undefined, (d) => paced.push(d));
    // Within one second of the clock: three tokens, then the wait until the next second.
    const takes = [];
    for (let i = 0; i < 5; i++) takes.push(await limiter.take(`r${i}@Capped.Test`, 1_000_000_250 + i));
    expect(takes).toEqual([null, null, null, 747, 746]);
    expect(paced).toEqual(['capped.test', 'capped.test']);
    // The next second has its own tokens.
    expect(await limiter.take('r9@capped.test', 1_000_001_000)).toBeNull();
    for (let i = 0; i < 10; i++) expect(await limiter.take(`r${i}@free.test`)).toBeNull();
    expect(limiter.rateFor('x@capped.test')).toBe(3);
    expect(limiter.rateFor('x@free.test')).toBeNull();
  });
});
