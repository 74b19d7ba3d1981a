/**
 * Issue 35: a guard against creep on the request path. Each scenario of the API bench is compared
 * with a reference measured in the same run by server CPU per request, and that ratio with the
 * one the last recorded run in bench/RESULTS.md gives. Ratios, not microseconds: the machine's
 * speed moves between runs by a third and more (bench/RESULTS.md), a ratio within one run less.
 *
 * The reference is the scenario's floor where both runs have it: the same work done by the same
 * libraries with nothing of ours around it ((f) for /health with its access-log line, (i) for the
 * read, (h) for the create). A ratio to a floor moves least with the machine, because both sides
 * pay the same system calls and libraries (on a machine three times faster, /health over bare
 * Fastify went from 1.84 to 2.73 x while the access log's own floor went from 1.25 to 1.77 x).
 * Without the floor in both runs, or without a floor for the same work (LOG_LEVEL=warn, and
 * PostgreSQL, whose floors are not measured), it is bare Fastify (a) for /health and the raw
 * lookup (e) for the rest.
 */

/** A scenario's ratio grows by more than this before it is called a regression. */
export const CREEP_TOLERANCE = 0.15;

/** Server CPU µs per request by scenario label, as the API section's table shows them. */
export type CpuByScenario = Map<string, number>;

/** The references a scenario's CPU may be divided by, the floor first, found by the label. */
export function referencesOf(label: string): ('(a)' | '(e)' | '(f)' | '(h)' | '(i)')[] {
  const atInfo = label.endsWith('LOG_LEVEL=info') && !label.includes('PostgreSQL');
  if (label.startsWith('(d)')) return atInfo ? ['(f)', '(a)'] : ['(a)'];
  if (label.startsWith('(b)')) return atInfo ? ['(i)', '(e)'] : ['(e)'];
  if (label.startsWith('(c)')) return atInfo ? ['(h)', '(e)'] : ['(e)'];
  return [];
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

const cpuOf = (cpu: CpuByScenario, ref: string) => [...cpu].find(([label]) => label.startsWith(ref))?.[1];

/** Each scenario's CPU per request over its first reference that every run in `runs` has. */
export function cpuRatios(cpu: CpuByScenario, runs: CpuByScenario[] = [cpu]): Map<string, { ratio: number; reference: string }> {
  const ratios = new Map<string, { ratio: number; reference: string }>();
  for (const [label, value] of cpu) {
    const reference = referencesOf(label).find((ref) => runs.every((run) => cpuOf(run, ref) !== undefined));
    if (reference) ratios.set(label, { ratio: value / cpuOf(cpu, reference)!, reference });
  }
  return ratios;
}

export interface CreepCheck {
  label: string;
  /** the scenario both ratios divide by */
  reference: string;
  recorded: number;
  now: number;
  /** now over recorded, minus one: 0.2 is 20% more CPU per request, relative to the reference */
  growth: number;
  regression: boolean;
}

/** Every scenario measured now that the recorded run also has, with its verdict. */
export function compareWithRecorded(now: CpuByScenario, recorded: CpuByScenario): CreepCheck[] {
  const before = cpuRatios(recorded, [now, recorded]);
  const after = cpuRatios(now, [now, recorded]);
  const checks: CreepCheck[] = [];
  for (const [label, { ratio, reference }] of after) {
    const was = before.get(label);
    if (was === undefined) continue;
    const growth = ratio / was.ratio - 1;
    checks.push({ label, reference, recorded: was.ratio, now: ratio, growth, regression: growth > CREEP_TOLERANCE });
  }
  return checks;
}

/** One line per check; a regression's line starts with REGRESSION so that it cannot be missed. */
export function creepLine(c: CreepCheck): string {
  const ref = c.reference;
  const change = `${c.growth >= 0 ? '+' : ''}${(c.growth * 100).toFixed(0)}%`;
  const figures = `${c.now.toFixed(2)} x ${ref} now against ${c.recorded.toFixed(2)} x recorded (${change})`;
  return c.regression
    ? `REGRESSION: ${c.label}: server CPU per request ${figures}, more than ${CREEP_TOLERANCE * 100}% worse than bench/RESULTS.md`
    : `ok: ${c.label}: ${figures}`;
}
