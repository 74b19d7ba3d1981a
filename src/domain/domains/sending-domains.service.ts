import type { ActingContext } from '../shared/actor.ts';
import { randomBytes } from 'node:crypto';
import type { DbHandle } from '../../db/connect.ts';
import type { SendingDomainRow } from '../../db/schema.ts';
import { ConflictError } from '../shared/errors.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, parseInputTimestamp } from '../shared/time.ts';
import { lockAccount } from '../accounts/accounts.repo.ts';
import { dkimKeys, type DkimKeyGenerator } from './dkim-key-generator.ts';
import {
  checkWarmupInput,
  domainLimitReached,
  SENDING_DOMAINS_MAX,
  dkimRecordName,
  dmarcRecordName,
  domainNotFound,
  judgeRecords,
  sendingDomainName,
  toSendingDomain,
  type SendingDomain,
} from './sending-domain.ts';
import * as repo from './sending-domains.repo.ts';
import type { TxtLookup } from './txt-lookup.ts';
import { utcDay, WARMUP_DEFAULTS } from './warmup.ts';
import { recordAudit } from '../audit/audit.service.ts';

export interface WarmupInput {
  enabled?: boolean;
  start?: number;
  factor?: number;
  started_at?: string | null;
}

/**
 * D23: the domains an account sends from. Adding one makes its DKIM key (2048-bit RSA, generated
 * off the event loop); verifying looks its records up in DNS and keeps what it found; a verified
 * DKIM record is what makes its mail signed (sending/dkim-keys.ts), and its warm-up plan what
 * caps its mail per day (sending/warmup-gate.ts).
 */
export class SendingDomainService {
  constructor(
    private readonly handle: DbHandle,
    private readonly lookupTxt: TxtLookup,
    private readonly keys: DkimKeyGenerator = dkimKeys,
  ) {}

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageSendingDomains(this.handle.db, accountId, page);
    return toPage('domains', await this.present(rows), total, page);
  }

  async get(accountId: number, id: number): Promise<SendingDomain> {
    return (await this.present([await this.find(accountId, id)]))[0];
  }

  /**
   * 409 DOMAIN_ALREADY_EXISTS when the account has the domain: one key per domain, as Mailchimp and
   * Brevo do. Issue 28 M1: at most SENDING_DOMAINS_MAX per account (403 KEY_LIMIT_REACHED), counted
   * before the key is made (no key is made for an account at its cap) and again with the insert,
   * under the account's lock, so concurrent creates never pass it; the key waits its turn in the
   * process's one generator (429 with Retry-After when the account has too many waiting there).
   */
  async create(acting: ActingContext, accountId: number, input: { domain: string; warmup?: WarmupInput }): Promise<SendingDomain> {
    const domain = sendingDomainName(input.domain);
    const now = nowIso();
    const warmup = mergeWarmup({ enabled: false, start: WARMUP_DEFAULTS.start, factor: WARMUP_DEFAULTS.factor, started_at: null }, input.warmup ?? {}, now);
    if ((await repo.countSendingDomains(this.handle.db, accountId)) >= SENDING_DOMAINS_MAX) throw domainLimitReached();
    const { publicKey, privateKey } = await this.keys.generate(accountId);
    const row = await this.handle.db.transaction().execute(async (trx) => {
      // SQLite transactions already run one at a time (BEGIN IMMEDIATE, see db/connect.ts).
      if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
      if ((await repo.countSendingDomains(trx, accountId)) >= SENDING_DOMAINS_MAX) throw domainLimitReached();
      const inserted = await repo.insertSendingDomain(trx, {
        account_id: accountId,
        domain,
        // Dated, with a random tail: a domain deleted and added again never meets its old key's record.
        selector: `sw${now.slice(0, 10).replaceAll('-', '')}${randomBytes(2).toString('hex')}`,
        dkim_private_key: privateKey,
        dkim_public_key: publicKey.toString('base64'),
        warmup_enabled: warmup.enabled ? 1 : 0,
        warmup_start: warmup.start,
        warmup_factor: warmup.factor,
        warmup_started_at: warmup.started_at,
        created_at: now,
      });
      if (inserted) await recordAudit(trx, acting, accountId, 'domain.created', { type: 'domain', id: inserted.id });
      return inserted;
    });
    if (!row) throw new ConflictError('DOMAIN_ALREADY_EXISTS', `the account has the sending domain ${domain} already`);
    return (await this.present([row]))[0];
  }

  /** The warm-up plan is what changes; the domain and its key stay (a new key: delete and add again). */
  async update(acting: ActingContext, accountId: number, id: number, input: { warmup?: WarmupInput }): Promise<SendingDomain> {
    const row = await this.find(accountId, id);
    const current = { enabled: row.warmup_enabled === 1, start: row.warmup_start, factor: Number(row.warmup_factor), started_at: row.warmup_started_at === null ? null : new Date(row.warmup_started_at).toISOString() };
    const warmup = mergeWarmup(current, input.warmup ?? {}, nowIso());
    const updated = await this.handle.db.transaction().execute(async (trx) => {
      const done = await repo.updateSendingDomain(trx, accountId, id, {
        warmup_enabled: warmup.enabled ? 1 : 0,
        warmup_start: warmup.start,
        warmup_factor: warmup.factor,
        warmup_started_at: warmup.started_at,
      });
      if (!done) throw domainNotFound();
      await recordAudit(trx, acting, accountId, 'domain.updated', { type: 'domain', id });
      return done;
    });
    return (await this.present([updated]))[0];
  }

  /** Looks the three TXT records up and keeps what was found, published or not: 200 either way. */
  async verify(acting: ActingContext, accountId: number, id: number): Promise<SendingDomain> {
    const row = await this.find(accountId, id);
    const [dkim, spf, dmarc] = await Promise.all([
      this.lookupTxt(dkimRecordName(row.selector, row.domain)),
      this.lookupTxt(row.domain),
      this.lookupTxt(dmarcRecordName(row.domain)),
    ]);
    const judged = judgeRecords(row, { dkim, spf, dmarc });
    // D24.8: every check through the API is recorded (it stores what was found, published or not).
    const updated = await this.handle.db.transaction().execute(async (trx) => {
      const done = await repo.updateSendingDomain(trx, accountId, id, {
        dkim_verified: judged.dkim_verified ? 1 : 0,
        spf_ok: judged.spf_ok ? 1 : 0,
        dmarc_ok: judged.dmarc_ok ? 1 : 0,
        checked_at: nowIso(),
        found_dkim: judged.found.dkim,
        found_spf: judged.found.spf,
        found_dmarc: judged.found.dmarc,
      });
      if (!done) throw domainNotFound();
      await recordAudit(trx, acting, accountId, 'domain.verified', { type: 'domain', id });
      return done;
    });
    return (await this.present([updated]))[0];
  }

  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      if (!(await repo.deleteSendingDomain(trx, accountId, id))) throw domainNotFound();
      await recordAudit(trx, acting, accountId, 'domain.deleted', { type: 'domain', id });
    });
  }

  private async find(accountId: number, id: number): Promise<SendingDomainRow> {
    const row = await repo.findSendingDomain(this.handle.db, accountId, id);
    if (!row) throw domainNotFound();
    return row;
  }

  private async present(rows: SendingDomainRow[]): Promise<SendingDomain[]> {
    const now = new Date();
    const claimed = await repo.claimedOn(this.handle.db, rows.map((r) => Number(r.id)), utcDay(now));
    return rows.map((r) => toSendingDomain(r, claimed.get(Number(r.id)) ?? 0, now));
  }
}

type StoredWarmup = { enabled: boolean; start: number; factor: number; started_at: string | null };

/**
 * The plan after a change: fields not given stay. A plan switched on without a `started_at`
 * starts today (day 1 again when switched off and on), and one that is on always has a start.
 */
function mergeWarmup(current: StoredWarmup, input: WarmupInput, now: string): StoredWarmup {
  checkWarmupInput(input);
  const enabled = input.enabled ?? current.enabled;
  let startedAt = input.started_at === undefined ? current.started_at : input.started_at === null ? null : parseInputTimestamp('warmup.started_at', input.started_at);
  if (input.started_at === undefined && enabled && !current.enabled) startedAt = now;
  if (enabled && startedAt === null) startedAt = now;
  return { enabled, start: input.start ?? current.start, factor: input.factor ?? current.factor, started_at: startedAt };
}
