import { describe, expect, it } from 'vitest';
import { classifyHit, type TrackingHit } from './engagement-kind.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const IPHONE_MAIL = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const SENT = Date.parse('2026-11-26T10:00:00Z');
const hit = (over: Partial<TrackingHit>): TrackingHit => ({ action: 'open', method: 'GET', ip: '203.0.113.7', userAgent: CHROME, sentAtMs: SENT, atMs: SENT + 60_000, ...over });

describe('classifyHit (D23)', () => {
  it.each([
    ['a browser', hit({}), 'human'],
    ["iPhone Mail from the person's own network", hit({ userAgent: IPHONE_MAIL }), 'human'],
    ["Gmail's image proxy, which fetches when the person opens", hit({ userAgent: 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)' }), 'human'],
    ['a click a minute after delivery', hit({ action: 'click' }), 'human'],
    ['a HEAD request', hit({ method: 'HEAD' }), 'machine'],
    ["Apple's network (IPv4)", hit({ ip: '17.58.101.4' }), 'machine'],
    ["Apple's network (IPv4 mapped in IPv6)", hit({ ip: '::ffff:17.58.101.4' }), 'machine'],
    ["Apple's network (IPv6)", hit({ ip: '2a01:b740:a42::1' }), 'machine'],
    ["Apple's proxy user agent from elsewhere", hit({ userAgent: 'Mozilla/5.0' }), 'machine'],
    ['no user agent', hit({ userAgent: undefined }), 'machine'],
    ['a security gateway', hit({ userAgent: 'Mozilla/5.0 (compatible; Barracuda Sentinel)' }), 'machine'],
    ['an HTTP library', hit({ userAgent: 'python-requests/2.32.3' }), 'machine'],
    ['a crawler', hit({ userAgent: 'Mozilla/5.0 (compatible; SomeBot/1.0; +https://example.com/bot)' }), 'machine'],
    ['a click 1.5 seconds after delivery', hit({ action: 'click', atMs: SENT + 1_500 }), 'machine'],
    ['an open 1.5 seconds after delivery (the rule is for clicks)', hit({ atMs: SENT + 1_500 }), 'human'],
    ['a click exactly 2 seconds after delivery', hit({ action: 'click', atMs: SENT + 2_000 }), 'human'],
    ['an address next to Apple\'s', hit({ ip: '18.0.0.1' }), 'human'],
  ])('%s: %s', (_name, input, kind) => {
    expect(classifyHit(input).kind).toBe(kind);
  });
});
