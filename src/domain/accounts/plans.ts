/** The spec's Limits table: request rates and key counts per plan. `null` means unlimited. */
export const PLANS = ['free', 'starter', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  rate: { perMinute: number; perSecond: number } | null;
  maxKeys: number | null;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { rate: { perMinute: 60, perSecond: 10 }, maxKeys: 2 },
  starter: { rate: { perMinute: 300, perSecond: 50 }, maxKeys: 5 },
  business: { rate: { perMinute: 1200, perSecond: 100 }, maxKeys: 20 },
  enterprise: { rate: null, maxKeys: null },
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
