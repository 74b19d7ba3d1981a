import { describe, expect, it } from 'vitest';
import { compareWithRecorded, cpuRatios, creepLine, recordedCpu } from './creep-guard.ts';

const section = (rows: [string, number][]) =>
  [
    'before',
    '<!-- bench:api -->',
    '## API hot path',
    '',
    '| scenario | req/s | p50 ms | p99 ms | max ms | ÷ (a) | non-2xx / errors | server CPU | server CPU µs/req | load-gen CPU |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(([label, cpu]) => `| ${label} | 1,000 | 1 | 2 | 3 | 0.5 | 0 / 0 | 90% | ${cpu.toLocaleString('en-US')} | 50% |`),
    '<!-- /bench:api -->',
    '| (c) outside the section | 1 | 1 | 1 | 1 | 1 | 0 / 0 | 1% | 9,999 | 1% |',
  ].join('\n');

const A = '(a) bare Fastify, constant route';
const E = '(e) reference: raw lookup';
const D = '(d) diagnostic: GET /health, LOG_LEVEL=info';
const B = '(b) GET /api/v1/contacts/{email}, LOG_LEVEL=info';
const C = '(c) POST /api/v1/contacts, LOG_LEVEL=info';
const CPG = '(c) POST /api/v1/contacts on PostgreSQL, LOG_LEVEL=info';
const CWARN = '(c) POST /api/v1/contacts, LOG_LEVEL=warn';
const F = '(f) floor: access log';
const H = '(h) floor: the create with its libraries';
const I = '(i) floor: the read with its libraries';

describe('creep guard', () => {
  it('reads each scenario’s CPU per request from the API section only, thousands separators and all', () => {
    const cpu = recordedCpu(section([[A, 14], [E, 25], [C, 1_197]]));
    expect([...cpu]).toEqual([[A, 14], [E, 25], [C, 1197]]);
    expect(recordedCpu('no section here').size).toBe(0);
  });

  it('divides /health by bare Fastify and every database scenario, PostgreSQL included, by the raw lookup', () => {
    const ratios = cpuRatios(new Map([[A, 10], [E, 20], [D, 15], [B, 30], [CPG, 100]]));
    expect(ratios.get(D)).toEqual({ ratio: 1.5, reference: '(a)' });
    expect(ratios.get(B)).toEqual({ ratio: 1.5, reference: '(e)' });
    expect(ratios.get(CPG)).toEqual({ ratio: 5, reference: '(e)' });
    expect(ratios.has(A)).toBe(false);
    expect(ratios.has(E)).toBe(false);
  });

  it('calls a ratio more than 15% above the recorded one a regression, and one within it not', () => {
    const recorded = new Map([[A, 10], [E, 20], [D, 20], [C, 100]]);
    // The machine is twice as slow now (references doubled): only the ratios count.
    const now = new Map([[A, 20], [E, 40], [D, 46.2], [C, 229]]);
    const checks = compareWithRecorded(now, recorded);
    const byLabel = new Map(checks.map((c) => [c.label, c]));
    expect(byLabel.get(D)!.regression).toBe(true); // 2.31 against 2.0: +15.5%
    expect(byLabel.get(C)!.regression).toBe(false); // 5.725 against 5.0: +14.5%
    expect(creepLine(byLabel.get(D)!)).toMatch(/^REGRESSION: \(d\) diagnostic: GET \/health, LOG_LEVEL=info: server CPU per request 2\.31 x \(a\) now against 2\.00 x recorded \(\+16%\)/);
    expect(creepLine(byLabel.get(C)!)).toMatch(/^ok: /);
  });

  it('divides by the floor of the same work when both runs have it, else by the reference both have', () => {
    const recorded = new Map([[A, 10], [E, 20], [F, 12], [H, 80], [D, 15], [C, 100], [CPG, 400], [CWARN, 90], [B, 40]]);
    // The floors moved with the machine; (b)'s floor (i) is new in this run.
    const now = new Map([[A, 10], [E, 20], [F, 18], [H, 120], [I, 40], [D, 22], [C, 150], [CPG, 400], [CWARN, 90], [B, 45]]);
    const byLabel = new Map(compareWithRecorded(now, recorded).map((c) => [c.label, c]));
    expect(byLabel.get(D)).toMatchObject({ reference: '(f)', regression: false }); // 22/18 against 15/12: -2%
    expect(byLabel.get(C)).toMatchObject({ reference: '(h)', regression: false }); // 1.25 against 1.25
    expect(byLabel.get(B)).toMatchObject({ reference: '(e)', regression: false }); // no (i) recorded: 2.25 against 2.0, +12.5%
    expect(byLabel.get(CPG)!.reference).toBe('(e)');
    expect(byLabel.get(CWARN)!.reference).toBe('(e)');
    expect(creepLine(byLabel.get(D)!)).toMatch(/x \(f\) now against/);
    // Against (a), as the guard did before the floors, /health would have read +47%.
    expect(cpuRatios(now, [now, new Map([[A, 10]])]).get(D)).toEqual({ ratio: 2.2, reference: '(a)' });
  });

  it('leaves out a scenario the recorded run does not have', () => {
    const checks = compareWithRecorded(new Map([[A, 10], [E, 20], [B, 30], [C, 90]]), new Map([[A, 10], [E, 20], [B, 30]]));
    expect(checks.map((c) => c.label)).toEqual([B]);
  });
});
