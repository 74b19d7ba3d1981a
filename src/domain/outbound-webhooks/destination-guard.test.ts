import { describe, expect, it } from 'vitest';
import { RefusedDestination, refusalReason, vetDestination } from './destination-guard.ts';

describe('webhook destination guard', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.9.9.9', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /metadata/],
    ['169.254.1.1', /linkLocal/],
    ['100.64.0.1', /carrierGradeNat/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['192.0.2.1', /reserved/],
    ['::1', /not an IPv6 global unicast/],
    ['::', /not an IPv6 global unicast/],
    ['fe80::1', /not an IPv6 global unicast/],
    ['fc00::1', /not an IPv6 global unicast/],
    ['fd00:ec2::254', /not an IPv6 global unicast/],
    ['::ffff:127.0.0.1', /127\.0\.0\.1 is a loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /metadata/],
    // Issue 14 L8: IPv4-compatible (::a.b.c.d, which ipaddr.js calls unicast), NAT64, 6to4, Teredo.
    ['::127.0.0.1', /::7f00:1 is not an IPv6 global unicast/],
    ['::7f00:1', /not an IPv6 global unicast/],
    ['::8.8.8.8', /::808:808 is not an IPv6 global unicast/],
    ['64:ff9b::a00:1', /not an IPv6 global unicast/],
    ['64:ff9b:1::a00:1', /not an IPv6 global unicast/],
    ['2002:7f00:1::', /6to4/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /teredo/],
    ['2001:db8::1', /reserved/],
    ['4000::1', /not an IPv6 global unicast/],
    ['ff02::1', /not an IPv6 global unicast/],
    ['fe80::1%eth0', /not an IP address/],
  ])('refuses %s', (address, reason) => {
    expect(refusalReason(address)).toMatch(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(refusalReason(address)).toBeNull();
  });

  it('refuses a host name that resolves to loopback, and an IPv6 literal in brackets, telling only "destination not allowed"', async () => {
    await expect(vetDestination('localhost', false)).rejects.toThrow(RefusedDestination);
    const refused = await vetDestination('[::1]', false).catch((err: RefusedDestination) => err);
    expect(refused).toBeInstanceOf(RefusedDestination);
    expect((refused as RefusedDestination).message).toBe('destination not allowed');
    expect((refused as RefusedDestination).detail).toMatch(/^::1 is not an IPv6 global unicast address/);
    expect(((await vetDestination('localhost', false).catch((err) => err)) as RefusedDestination).detail).toMatch(/^localhost resolves to /);
  });

  it('allows private destinations when the operator says so, pinning a resolved address', async () => {
    expect(await vetDestination('127.0.0.1', true)).toEqual({ address: '127.0.0.1', family: 4 });
    const local = await vetDestination('localhost', true);
    expect(['127.0.0.1', '::1']).toContain(local.address);
  });
});
