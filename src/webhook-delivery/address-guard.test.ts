import { describe, expect, it } from 'vitest';
import { RefusedDestination, refusalReason, vetDestination } from './address-guard.ts';

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
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /linkLocal/],
    ['fc00::1', /uniqueLocal/],
    ['fd00:ec2::254', /metadata/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['2002:7f00:1::', /6to4/],
    ['64:ff9b::a00:1', /rfc6052/],
    ['ff02::1', /multicast/],
  ])('refuses %s', (address, reason) => {
    expect(refusalReason(address)).toMatch(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(refusalReason(address)).toBeNull();
  });

  it('refuses a host name that resolves to loopback, and an IPv6 literal in brackets', async () => {
    await expect(vetDestination('localhost', false)).rejects.toThrow(RefusedDestination);
    await expect(vetDestination('[::1]', false)).rejects.toThrow(/::1 is a loopback address/);
  });

  it('allows private destinations when the operator says so, pinning a resolved address', async () => {
    expect(await vetDestination('127.0.0.1', true)).toEqual({ address: '127.0.0.1', family: 4 });
    const local = await vetDestination('localhost', true);
    expect(['127.0.0.1', '::1']).toContain(local.address);
  });
});
