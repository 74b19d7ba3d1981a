import type { CampaignRow } from '../../db/schema.ts';
import { ValidationError } from '../shared/errors.ts';
import { readJson } from '../shared/json.ts';

/**
 * D23 A/B tests: 2-4 variants over a campaign's base content, a test share of the audience split
 * equally between them, a metric and a wait. After the wait, the variant with the best rate of
 * the metric over its delivered recipients (ties: the first) is sent to the rest.
 */
export const AB_LIMITS = { variantsMin: 2, variantsMax: 4, testPercentMin: 2, testPercentMax: 50, waitMinutesMin: 1, waitMinutesMax: 10080 } as const;

export const AB_METRICS = ['human_opens', 'human_clicks'] as const;
export type AbMetric = (typeof AB_METRICS)[number];

/** What a variant may change; a field it leaves out (or null) is the base campaign's. */
export interface Variant {
  subject?: string | null;
  from_name?: string | null;
  html?: string | null;
  text?: string | null;
}
export const VARIANT_FIELDS = ['subject', 'from_name', 'html', 'text'] as const;

export interface AbTest {
  test_percent: number;
  metric: AbMetric;
  wait_minutes: number;
}

/**
 * Where an A/B campaign is (campaigns.ab_phase): sending the test share, waiting for
 * `ab_wait_until`, or sending the winner to the rest. The campaign is SENDING throughout: the
 * phase is a sub-state of SENDING, and campaign-status.ts stays the one place for status changes.
 */
export type AbPhase = 'TESTING' | 'WAITING' | 'DECIDED';

export function variantsOf(c: Pick<CampaignRow, 'variants'>): Variant[] | null {
  return readJson<Variant[] | null>(c.variants, null);
}

export function abTestOf(c: Pick<CampaignRow, 'ab_test'>): AbTest | null {
  return readJson<AbTest | null>(c.ab_test, null);
}

/**
 * Both or neither (D23): variants without a test would have no share or wait, a test without
 * variants nothing to compare. Ranges the schema cannot say (it checks each field alone) are
 * checked here too, so a service caller gets the same 400 naming the field.
 */
export function checkAbSettings(variants: Variant[] | null, abTest: AbTest | null): void {
  if (variants !== null && abTest === null) throw new ValidationError('ab_test is required when variants are given (D23: both or neither)');
  if (variants === null && abTest !== null) throw new ValidationError('variants are required when ab_test is given (D23: both or neither)');
  if (variants === null || abTest === null) return;
  if (variants.length < AB_LIMITS.variantsMin || variants.length > AB_LIMITS.variantsMax) {
    throw new ValidationError(`variants must hold ${AB_LIMITS.variantsMin}-${AB_LIMITS.variantsMax} variants; it has ${variants.length}`);
  }
  const whole = (field: string, value: number, min: number, max: number) => {
    if (!Number.isInteger(value) || value < min || value > max) throw new ValidationError(`ab_test.${field} must be an integer from ${min} to ${max}`);
  };
  whole('test_percent', abTest.test_percent, AB_LIMITS.testPercentMin, AB_LIMITS.testPercentMax);
  whole('wait_minutes', abTest.wait_minutes, AB_LIMITS.waitMinutesMin, AB_LIMITS.waitMinutesMax);
  if (!(AB_METRICS as readonly string[]).includes(abTest.metric)) throw new ValidationError(`ab_test.metric must be one of ${AB_METRICS.join(', ')}`);
}

/** Whether a variant sets `value` for a field: left out, null and empty all mean the base's. */
export const setsField = (value: string | null | undefined): value is string => typeof value === 'string' && value !== '';

/** A variant as stored: only the fields it sets. */
export function storedVariant(v: Variant): Variant {
  return Object.fromEntries(VARIANT_FIELDS.flatMap((f) => (setsField(v[f]) ? [[f, v[f]]] : [])));
}

/** A variant's content: its own fields over the base campaign's. */
export function variantContent<C extends Pick<CampaignRow, 'subject' | 'from_name' | 'html' | 'text'>>(base: C, variant: Variant | undefined): C {
  if (!variant) return base;
  const merged = { ...base };
  for (const f of VARIANT_FIELDS) {
    const v = variant[f];
    if (setsField(v)) merged[f] = v;
  }
  return merged;
}

/**
 * How many recipients each variant's test share takes: test_percent of the audience, rounded, but
 * at least one per variant while the audience has that many; split as equally as whole people
 * allow (the first variants take the remainder, one each).
 */
export function testShareSizes(audience: number, testPercent: number, variantCount: number): number[] {
  const wanted = Math.round((audience * testPercent) / 100);
  const total = Math.min(audience, Math.max(wanted, variantCount));
  const each = Math.floor(total / variantCount);
  return Array.from({ length: variantCount }, (_, i) => each + (i < total % variantCount ? 1 : 0));
}

/** A variant's tally over its recipients: delivered = sent minus bounced, as in the statistics. */
export interface VariantTally {
  delivered: number;
  human_opened: number;
  human_clicked: number;
}

/**
 * The index of the variant with the best rate of `metric` over its delivered recipients; ties go
 * to the first. Rates are compared as fractions (cross-multiplied), not rounded percents, so two
 * rates that round alike still rank. A variant with no delivery has rate 0.
 */
export function pickWinner(tallies: VariantTally[], metric: AbMetric): number {
  const fraction = (t: VariantTally) => (t.delivered === 0 ? [0, 1] : [metric === 'human_opens' ? t.human_opened : t.human_clicked, t.delivered]);
  let best = 0;
  for (let i = 1; i < tallies.length; i++) {
    const [n, d] = fraction(tallies[i]);
    const [bestN, bestD] = fraction(tallies[best]);
    if (n * bestD > bestN * d) best = i;
  }
  return best;
}
