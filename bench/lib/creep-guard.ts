/**
 * Issue 35: a guard against creep on the request path. Each scenario of the API bench is compared
 * with its reference by server CPU per request ((d) with bare Fastify (a); the reads and creates,
 * SQLite and PostgreSQL, with the raw lookup (e)), and that ratio with the one the last recorded
 * run in bench/RESULTS.md gives. Ratios, not microseconds: the machine's speed moves between runs
 * by a third (bench/RESULTS.md), a ratio within one run much less.
 */

/** A scenario's ratio grows by more than this before it is called a regression. */
export const CREEP_TOLERANCE = 0.15;

/** Server CPU µs per request by scenario label, as the API section's table shows them. */
export type CpuByScenario = Map<string, number>;

/** The reference a scenario's CPU is divided by, found by the label's opening letter. */
export function referenceOf(label: string): '(a)' | '(e)' | null {
  if (label.startsWith('(d)')) return '(a)';
  if (label.startsWith('(b)') || label.startsWith('(c)')) return '(e)';
  return null;
}

/** The rows of the API section's results table (between its markers), as label → server CPU µs per request. */
export function recordedCpu(resultsMarkdown: string): CpuByScenario {
  const start = resultsMarkdown.indexOf('<!-- bench:api -->');
  const end = resultsMarkdown.indexOf('<!-- /bench:api -->');
  const found: CpuByScenario = new Map();
  if (start === -1 || end < start) return found;
  const lines = resultsMarkdown.slice(start, end).split('\n');
  const head = lines.find((l) => l.startsWith('| scenario |'));
  if (!head) return found;
  const column = cells(head).indexOf('server CPU µs/req');
  if (column === -1) return found;
  for (const line of lines) {
    if (!line.startsWith('| (')) continue;
    const row = cells(line);
    const value = Number(row[column]?.replace(/,/g, ''));
    if (Number.isFinite(value) && value > 0) found.set(row[0], value);
  }
  return found;
}

const cells = (line: string) =>
  line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

/** Each scenario's CPU per request over its reference's, where both are known. */
export function cpuRatios(cpu: CpuByScenario): Map<string, number> {
  const referenceCpu = (ref: string) => [...cpu].find(([label]) => label.startsWith(ref))?.[1];
  const ratios = new Map<string, number>();
  for (const [label, value] of cpu) {
    const ref = referenceOf(label);
    const base = ref ? referenceCpu(ref) : undefined;
    if (base) ratios.set(label, value / base);
  }
  return ratios;
}

export interface CreepCheck {
  label: string;
  recorded: number;
  now: number;
  /** now over recorded, minus one: 0.2 is 20% more CPU per request, relative to the reference */
  growth: number;
  regression: boolean;
}

/** Every scenario measured now that the recorded run also has, with its verdict. */
export function compareWithRecorded(now: CpuByScenario, recorded: CpuByScenario): CreepCheck[] {
  const before = cpuRatios(recorded);
  const after = cpuRatios(now);
  const checks: CreepCheck[] = [];
  for (const [label, ratio] of after) {
    const was = before.get(label);
    if (was === undefined) continue;
    const growth = ratio / was - 1;
    checks.push({ label, recorded: was, now: ratio, growth, regression: growth > CREEP_TOLERANCE });
  }
  return checks;
}

/** One line per check; a regression's line starts with REGRESSION so that it cannot be missed. */
export function creepLine(c: CreepCheck): string {
  const ref = referenceOf(c.label);
  const change = `${c.growth >= 0 ? '+' : ''}${(c.growth * 100).toFixed(0)}%`;
  const figures = `${c.now.toFixed(2)} x ${ref} now against ${c.recorded.toFixed(2)} x recorded (${change})`;
  return c.regression
    ? `REGRESSION: ${c.label}: server CPU per request ${figures}, more than ${CREEP_TOLERANCE * 100}% worse than bench/RESULTS.md`
    : `ok: ${c.label}: ${figures}`;
}
