import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-values.ts';
import { loadConfig } from './config.ts';

const base = { SECRET: 'x', DATA_DIR: '/nonexistent-never-written' };

// D23: DNS_SERVERS names the resolver sending-domain verification asks.
describe('DNS_SERVERS', () => {
  it('unset: the system resolver (null)', () => {
    expect(loadConfig(base).dnsServers).toBeNull();
  });

  it('comma-separated IP addresses, each with an optional port', () => {
    expect(loadConfig({ ...base, DNS_SERVERS: '127.0.0.1:5353, 1.1.1.1,::1,[2001:db8::1]:53' }).dnsServers).toEqual(['127.0.0.1:5353', '1.1.1.1', '::1', '[2001:db8::1]:53']);
  });

  it('anything else refuses to start, naming the bad entry', () => {
    for (const bad of ['dns.example.com', '127.0.0.1:0', '127.0.0.1:70000', '1.2.3.4,', '300.1.1.1', '[::1']) {
      expect(() => loadConfig({ ...base, DNS_SERVERS: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ ...base, DNS_SERVERS: 'dns.example.com' })).toThrow('"dns.example.com"');
  });
});

// D24.8: how long the audit log keeps its entries.
describe('AUDIT_RETENTION_DAYS', () => {
  it('unset: 400 days', () => {
    expect(loadConfig(base).auditRetentionDays).toBe(400);
  });

  it('a positive integer is taken; anything else refuses to start, naming the setting', () => {
    expect(loadConfig({ ...base, AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
    for (const bad of ['0', '-1', '1.5', 'forever']) {
      expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: bad }), bad).toThrow('AUDIT_RETENTION_DAYS');
    }
  });
});

describe('REQUESTS_PER_ACCOUNT (issue 28)', () => {
  // Issue 35 tried 16 in progress on SQLite: a flood of creates cost a fifth less CPU per request
  // (bigger group commits), but beside account A's attack account B's one-step workflow took 8 x
  // longer and its reads' p99 doubled (bench/RESULTS.md). The share stays 4.
  it('unset on SQLite: 4 in progress, 4 started per turn', () => {
    expect(loadConfig(base).requestShare).toEqual({ inProgress: 4, perTurn: 4 });
  });

  it('unset on PostgreSQL: 20 in progress, no cap per turn', () => {
    expect(loadConfig({ ...base, DATABASE_URL: 'postgres://127.0.0.1/test' }).requestShare).toEqual({ inProgress: 20, perTurn: Infinity });
  });

  it('set: the operator decides how many are in progress; the starts per turn stay 4 on SQLite', () => {
    expect(loadConfig({ ...base, REQUESTS_PER_ACCOUNT: '8' }).requestShare).toEqual({ inProgress: 8, perTurn: 4 });
  });
});
