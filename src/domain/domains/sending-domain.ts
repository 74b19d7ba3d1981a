import { emailDomain } from '../shared/email-address.ts';
import validator from 'validator';
import type { SendingDomainRow } from '../../db/schema.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { toApiTimestamp } from '../shared/time.ts';
import { WARMUP_LIMITS, warmupCap } from './warmup.ts';

/**
 * The key a message is DKIM-signed with (D23): the private key as PEM, which crosses to the render
 * thread. Here with the sending domain it belongs to, so account mail can name it without the sender.
 */
export interface DkimSigningKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** D23: a sending domain as the API shows it (create, verify and reads alike). Pure. */
export const DNS_RECORD_PURPOSES = ['DKIM', 'SPF', 'DMARC'] as const;
export type DnsRecordPurpose = (typeof DNS_RECORD_PURPOSES)[number];

export interface DnsRecord {
  purpose: DnsRecordPurpose;
  type: 'TXT';
  name: string;
  value: string;
}

export interface SendingDomain {
  id: number;
  domain: string;
  selector: string;
  records: DnsRecord[];
  dkim_verified: boolean;
  spf_ok: boolean;
  dmarc_ok: boolean;
  checked_at: string | null;
  found: { dkim: string | null; spf: string | null; dmarc: string | null };
  warmup: { enabled: boolean; start: number; factor: number; started_at: string | null };
  warmup_cap_today: number | null;
  sent_today: number;
  created_at: string;
}

/**
 * Issue 28 M1: the most sending domains one account may have. Each one costs a 2048-bit RSA key
 * (a large share of a CPU core for a moment), and an account sends from a handful of domains.
 */
export const SENDING_DOMAINS_MAX = 20;

export const domainLimitReached = () =>
  // The spec's code for a per-account count cap (D9's API keys); a sending domain is its DKIM key.
  new ForbiddenError('KEY_LIMIT_REACHED', `an account may have at most ${SENDING_DOMAINS_MAX} sending domains; delete one first`);

export const domainNotFound = () => new NotFoundError('DOMAIN_NOT_FOUND', 'sending domain not found');

/** A hostname with a dot, lower-cased, without a trailing dot; anything else is 400 naming `domain`. */
export function sendingDomainName(raw: string): string {
  const domain = raw.trim().toLowerCase().replace(/\.$/, '');
  if (domain.length > 253 || !validator.isFQDN(domain, { require_tld: true, allow_underscores: false })) {
    throw new ValidationError('domain must be a hostname such as mail.example.com');
  }
  return domain;
}

/** The part after the last `@` of an address, lower-cased: the From domain signing and warm-up look up (D23). */
export function fromDomainOf(email: string | null): string | null {
  if (!email || !email.includes('@')) return null;
  return emailDomain(email);
}

export const dkimRecordName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;
export const dmarcRecordName = (domain: string) => `_dmarc.${domain}`;
export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;
/**
 * Suggestions only: the service cannot know which servers relay for the domain (SMTP_URL may be a
 * provider's), so SPF names the domain's own A and MX hosts, which the user extends with the
 * relay's `include:`; DMARC starts at p=none, to watch reports before enforcing.
 */
export const SPF_SUGGESTION = 'v=spf1 a mx ~all';
export const DMARC_SUGGESTION = 'v=DMARC1; p=none; adkim=r; aspf=r';

export function recordsOf(row: Pick<SendingDomainRow, 'domain' | 'selector' | 'dkim_public_key'>): DnsRecord[] {
  return [
    { purpose: 'DKIM', type: 'TXT', name: dkimRecordName(row.selector, row.domain), value: dkimRecordValue(row.dkim_public_key) },
    { purpose: 'SPF', type: 'TXT', name: row.domain, value: SPF_SUGGESTION },
    { purpose: 'DMARC', type: 'TXT', name: dmarcRecordName(row.domain), value: DMARC_SUGGESTION },
  ];
}

/** The warm-up plan's cap for `now`'s UTC day (D23), whether or not the plan is on. */
export function warmupCapOf(row: Pick<SendingDomainRow, 'warmup_start' | 'warmup_factor' | 'warmup_started_at'>, now: Date): number {
  const startedAt = row.warmup_started_at === null ? null : toApiTimestamp(row.warmup_started_at);
  return warmupCap({ start: row.warmup_start, factor: Number(row.warmup_factor), startedAt }, now);
}

/** The row as the API shows it: never its private key. `sentToday` is the warm-up day's count. */
export function toSendingDomain(row: SendingDomainRow, sentToday: number, now = new Date()): SendingDomain {
  const enabled = row.warmup_enabled === 1;
  const startedAt = row.warmup_started_at === null ? null : toApiTimestamp(row.warmup_started_at);
  return {
    id: Number(row.id),
    domain: row.domain,
    selector: row.selector,
    records: recordsOf(row),
    dkim_verified: row.dkim_verified === 1,
    spf_ok: row.spf_ok === 1,
    dmarc_ok: row.dmarc_ok === 1,
    checked_at: row.checked_at === null ? null : toApiTimestamp(row.checked_at),
    found: { dkim: row.found_dkim, spf: row.found_spf, dmarc: row.found_dmarc },
    warmup: { enabled, start: row.warmup_start, factor: Number(row.warmup_factor), started_at: startedAt },
    warmup_cap_today: enabled ? warmupCapOf(row, now) : null,
    sent_today: sentToday,
    created_at: toApiTimestamp(row.created_at),
  };
}

/**
 * D26.2, issue 30 item 2: a warm-up plan on a domain whose DKIM record is not verified yet is kept
 * (the records may still be on their way), with a warning in the answer: until it is verified its
 * mail goes unsigned by the domain, and the days of the plan pass without building its reputation.
 */
export function warmupWarnings(domain: Pick<SendingDomain, 'id' | 'dkim_verified' | 'warmup'>): string[] {
  if (!domain.warmup.enabled || domain.dkim_verified) return [];
  return [
    `warm-up is on but the domain's DKIM record is not verified: its mail is not signed with this domain's key, so the warm-up days pass without building its reputation; publish the records and verify it (POST /api/v1/domains/${domain.id}/verify)`,
  ];
}

/** Range checks the schema also states, kept here so a service caller gets the same 400 naming the field. */
export function checkWarmupInput(input: { start?: number; factor?: number }): void {
  if (input.start !== undefined && (!Number.isInteger(input.start) || input.start < WARMUP_LIMITS.startMin || input.start > WARMUP_LIMITS.startMax)) {
    throw new ValidationError(`warmup.start must be an integer from ${WARMUP_LIMITS.startMin} to ${WARMUP_LIMITS.startMax}`);
  }
  if (input.factor !== undefined && (!Number.isFinite(input.factor) || input.factor < WARMUP_LIMITS.factorMin || input.factor > WARMUP_LIMITS.factorMax)) {
    throw new ValidationError(`warmup.factor must be a number from ${WARMUP_LIMITS.factorMin} to ${WARMUP_LIMITS.factorMax}`);
  }
}

/** What verification reads in the TXT records found. Pure. */
export function judgeRecords(row: Pick<SendingDomainRow, 'dkim_public_key'>, found: { dkim: string[]; spf: string[]; dmarc: string[] }) {
  const dkim = found.dkim.find((r) => /^v=DKIM1\b/i.test(r.trim())) ?? found.dkim[0] ?? null;
  const spf = found.spf.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));
  const dmarc = found.dmarc.filter((r) => /^v=DMARC1\s*(;|$)/i.test(r.trim()));
  const publishedKey = dkim === null ? null : (/(?:^|;)\s*p=([^;]*)/i.exec(dkim)?.[1] ?? '').replace(/\s+/g, '');
  return {
    found: { dkim, spf: spf[0] ?? null, dmarc: dmarc[0] ?? null },
    dkim_verified: publishedKey === row.dkim_public_key,
    // RFC 7208 4.5: more than one SPF record is an error, as good as none.
    spf_ok: spf.length === 1,
    // RFC 7489 6.6.3: a DMARC record needs exactly one, with a policy.
    dmarc_ok: dmarc.length === 1 && /(?:^|;)\s*p=\s*(none|quarantine|reject)\s*(;|$)/i.test(dmarc[0]),
  };
}
