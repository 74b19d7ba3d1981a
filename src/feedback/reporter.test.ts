import { describe, expect, it } from 'vitest';
import { reporterOfConnection, reporterOfMailbox } from './reporter.ts';

// Issue 28: a complaint's reporter is the network it came from, not what its report says.
describe('issue 28: reporterOfConnection', () => {
  it.each([
    ['192.0.2.17', 'ip:192.0.2.0/24'],
    ['192.0.2.200', 'ip:192.0.2.0/24'],
    ['192.0.3.1', 'ip:192.0.3.0/24'],
    ['::ffff:198.51.100.9', 'ip:198.51.100.0/24'],
    ['2001:db8:1:2:3:4:5:6', 'ip:2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', 'ip:2001:db8:1:2::/64'],
    ['2001:db8::1', 'ip:2001:db8:0:0::/64'],
    ['::1', 'ip:0:0:0:0::/64'],
    ['fe80::1%eth0', 'ip:fe80:0:0:0::/64'],
  ])('%s is %s', (address, reporter) => {
    expect(reporterOfConnection(address)).toBe(reporter);
  });
});

describe('issue 28: reporterOfMailbox', () => {
  it.each([
    ['fbl@ISP.example.net', 'domain:isp.example.net'],
    ['bounces@other.example', 'domain:other.example'],
    [null, 'domain:unknown'],
    ['', 'domain:unknown'],
  ])('%s is %s', (sender, reporter) => {
    expect(reporterOfMailbox(sender)).toBe(reporter);
  });
});
