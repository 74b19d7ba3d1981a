/**
 * D23 warm-up: a new sending domain's mail grows day by day, so receiving providers learn it
 * before it sends in bulk. Pure: the plan, its limits and the day's cap.
 */
export interface WarmupPlan {
  enabled: boolean;
  /** messages on the first day */
  start: number;
  /** daily growth: each UTC day may send `factor` times the day before */
  factor: number;
  /** the plan's first day is this instant's UTC day; null while it never ran */
  startedAt: string | null;
}

export const WARMUP_DEFAULTS = { start: 50, factor: 1.5 } as const;
export const WARMUP_LIMITS = { startMin: 1, startMax: 1_000_000, factorMin: 1, factorMax: 10 } as const;
/** Beyond this a cap no longer limits anything; it keeps factor^days from reaching Infinity. */
const CAP_CEILING = 1_000_000_000;
const DAY_MS = 86_400_000;

/** The UTC day of an instant, YYYY-MM-DD: the warm-up's counting unit. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Whole UTC days from `startedAt`'s day to `now`'s; never negative (a start in the future counts as day 1). */
export function daysSince(startedAt: string, now: Date): number {
  const start = Date.parse(`${startedAt.slice(0, 10)}T00:00:00Z`);
  const today = Date.parse(`${utcDay(now)}T00:00:00Z`);
  return Math.max(0, Math.round((today - start) / DAY_MS));
}

/** round(start * factor^(days since started_at)): what the domain may send on `now`'s UTC day. */
export function warmupCap(plan: Pick<WarmupPlan, 'start' | 'factor' | 'startedAt'>, now: Date): number {
  const days = plan.startedAt === null ? 0 : daysSince(plan.startedAt, now);
  return Math.min(CAP_CEILING, Math.round(plan.start * plan.factor ** days));
}
