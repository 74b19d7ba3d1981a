import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Db, Dialect } from '../../db/connect.ts';
import { jsonArrayHasAny } from '../../db/sql-helpers.ts';
import { readHere, type ReadRows } from '../../db/read-pool.ts';
import { addToCounters } from './campaign-stats.repo.ts';
import { applyStatusChange } from '../contacts/contacts.repo.ts';
import { contactSuppressed, suppressRecipientAddress } from '../suppressions/suppressions.repo.ts';

/** The writes of campaign_recipients, its one writer, with the audience query a snapshot inserts; its reads are in recipient-reads.repo.ts. */

export interface ClaimOptions {
  /** most rows to take in one claim */
  limit: number;
  /** ISO timestamp: rows due at or before it are claimable, and so are rows whose lease ended by it */
  now: string;
  /** ISO timestamp the claim's lease lasts until; a sender that dies loses its rows when it passes */
  leaseUntil: string;
  campaignId?: number;
}

/**
 * Claims a batch of recipients for sending, atomically: no two senders ever hold the same row.
 * PostgreSQL: the candidate rows are locked with FOR UPDATE SKIP LOCKED, so concurrent senders
 * take disjoint batches without waiting for each other. SQLite: one writer at a time, so the
 * single UPDATE is atomic by itself.
 * A claim is not a send: a row is marked sent only after the mail server accepted it, so a crash
 * between claim and send loses nothing (the lease expires and the row is claimed again).
 */
export async function claimRecipients(db: Db, dialect: Dialect, opts: ClaimOptions) {
  const candidates = dialect === 'sqlite' && opts.campaignId !== undefined ? sqliteCampaignCandidates(db, opts.campaignId, opts) : claimCandidates(db, dialect, opts);
  return db
    .updateTable('campaign_recipients')
    .set({ status: 'CLAIMED', claimed_until: opts.leaseUntil })
    .where('id', 'in', candidates)
    // Issue 34: only rows of a campaign still SENDING, read by the claim itself: a pause or cancel
    // committed after the sender listed its campaigns stops the next claim.
    .where('campaign_id', 'in', db.selectFrom('campaigns').select('campaigns.id').where('campaigns.status', '=', 'SENDING'))
    .returning(['id', 'campaign_id', 'contact_id', 'email', 'attempts', 'message_id', 'variant', 'next_attempt_at'])
    .execute();
}

function claimCandidates(db: Db, dialect: Dialect, opts: ClaimOptions) {
  let candidates = db
    .selectFrom('campaign_recipients')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'PENDING'), eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', opts.now)])]),
        eb.and([eb('status', '=', 'CLAIMED'), eb('claimed_until', '<=', opts.now)]),
      ]),
    )
    .orderBy('id')
    .limit(opts.limit);
  if (opts.campaignId !== undefined) candidates = candidates.where('campaign_id', '=', opts.campaignId);
  if (dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
  return candidates;
}

/**
 * The same rows as claimCandidates for one campaign (the first `limit` by id among both kinds),
 * in a form SQLite can answer from the (campaign_id, status) index in id order. With the OR, it
 * read every row of the campaign and sorted them: about 340 ms per claim of 200 at 1M recipients,
 * against 0.2 ms this way.
 */
function sqliteCampaignCandidates(db: Db, campaignId: number, opts: ClaimOptions) {
  const pending = db
    .selectFrom('campaign_recipients')
    .select('id')
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'PENDING')
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', opts.now)]))
    .orderBy('id')
    .limit(opts.limit);
  const leaseEnded = db
    .selectFrom('campaign_recipients')
    .select('id')
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'CLAIMED')
    .where('claimed_until', '<=', opts.now)
    .orderBy('id')
    .limit(opts.limit);
  const both = db.selectFrom(pending.as('p')).select('p.id').unionAll(db.selectFrom(leaseEnded.as('l')).select('l.id'));
  return db.selectFrom(both.as('c')).select('c.id').orderBy('c.id').limit(opts.limit);
}

/**
 * Whose mail a snapshot takes: D13's audience rule with D18's sources. `matching` holds the
 * segments' filters (and a follow-up's part of an earlier campaign), compiled over `contacts`.
 */
export interface Audience {
  accountId: number;
  listIds: number[];
  matching: RawBuilder<boolean>[];
  tags: string[];
}

const hasSources = (a: Audience) => a.listIds.length > 0 || a.matching.length > 0;

function audienceQuery(db: Db, dialect: Dialect, a: Audience) {
  let q = db
    .selectFrom('contacts')
    .where('contacts.account_id', '=', a.accountId)
    .where('contacts.status', '=', 'SUBSCRIBED')
    // Issue 28 M3: a contact waiting for its double opt-in confirmation is mailed nothing else (contact-status.ts `mailable`).
    .where('contacts.awaiting_confirmation', '=', 0)
    .where((eb) => {
      const sources: Expression<SqlBool>[] = [...a.matching];
      if (a.listIds.length > 0) {
        // D20: only SUBSCRIBED memberships are an audience; UNCONFIRMED ones wait for the person.
        sources.unshift(
          eb.exists(
            eb
              .selectFrom('list_members')
              .select('list_members.contact_id')
              .whereRef('list_members.contact_id', '=', 'contacts.id')
              .where('list_members.list_id', 'in', a.listIds)
              .where('list_members.status', '=', 'SUBSCRIBED'),
          ),
        );
      }
      return eb.or(sources);
    });
  if (a.tags.length > 0) q = q.where(jsonArrayHasAny(dialect, 'contacts.tags', a.tags));
  // D19: a suppressed address or domain is never in an audience, whatever the contact's status.
  return q.where(sql<boolean>`not ${contactSuppressed(dialect, a.accountId)}`);
}

export async function countAudience(db: Db, dialect: Dialect, a: Audience, read: ReadRows = readHere): Promise<number> {
  if (!hasSources(a)) return 0;
  const [row] = await read(audienceQuery(db, dialect, a).select((eb) => eb.fn.countAll<number>().as('n')));
  return Number(row!.n);
}

/**
 * D13, D18 and D19: the audience is snapshotted into recipient rows in one set-based statement:
 * contacts in any of the lists or matching any of the segments (each once), with any of the tags
 * if given, SUBSCRIBED at this moment, and not suppressed.
 */
export async function snapshotAudience(db: Db, dialect: Dialect, campaignId: number, a: Audience): Promise<number> {
  if (!hasSources(a)) return 0;
  const result = await db
    .insertInto('campaign_recipients')
    .columns(['campaign_id', 'contact_id', 'email', 'status'])
    .expression(audienceQuery(db, dialect, a).select((eb) => [eb.val(campaignId).as('campaign_id'), 'contacts.id', 'contacts.email', eb.val('PENDING').as('status')]))
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Issue 34: the status of a row given back unsent: PENDING, to be claimed again (a PAUSED
 * campaign's too, when it resumes), or CANCELLED when its campaign was cancelled meanwhile.
 */
const unsentStatus = sql<string>`case when exists (select 1 from campaigns where campaigns.id = campaign_recipients.campaign_id and campaigns.status = 'CANCELLED') then 'CANCELLED' else 'PENDING' end`;

/** Gives claimed rows back (a stopping sender, a failed or paused campaign); only rows still claimed. */
export async function releaseClaims(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('campaign_recipients').set({ status: unsentStatus, claimed_until: null }).where('id', 'in', ids).where('status', '=', 'CLAIMED').execute();
}

/**
 * D23: claimed rows held back for their domain's cap go back to PENDING, due at `until`, with no
 * attempt counted and no error: nothing went wrong with them. Only rows still claimed.
 */
export async function postponeClaims(db: Db, ids: number[], until: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('campaign_recipients').set({ status: unsentStatus, claimed_until: null, next_attempt_at: until }).where('id', 'in', ids).where('status', '=', 'CLAIMED').execute();
}

/** Extends the lease on rows this sender still holds (claimed and not yet recorded). */
export async function renewClaims(db: Db, ids: number[], leaseUntil: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('campaign_recipients')
      .set({ claimed_until: leaseUntil })
      .where('id', 'in', ids.slice(i, i + 500))
      .where('status', '=', 'CLAIMED')
      .execute();
  }
}

export interface ClaimedRecipient {
  id: number;
  campaign_id: number;
  contact_id: number | null;
}

/**
 * The mail server accepted the message. Guarded by CLAIMED so a late duplicate record changes
 * nothing; counted in the same transaction (the caller's) only when the row changed. Returns
 * whether it did.
 */
export async function markSent(db: Db, r: ClaimedRecipient, messageId: string, now: string): Promise<boolean> {
  return (await markSentMany(db, [{ row: r, messageId }], now)).length > 0;
}

export interface SentRecord {
  row: ClaimedRecipient;
  messageId: string;
}

/**
 * markSent for several rows in the caller's one transaction (the sender's group commit), all
 * stamped `now`: one guarded update for the whole group, and one counter update per campaign for
 * the rows that really changed (statistics are the sum over the shards, so the group's count can
 * go to its first row's shard). One statement rather than one per row: at a few rows per group,
 * the per-statement cost was most of what recording a message cost the sender.
 */
export async function markSentMany<R extends SentRecord>(db: Db, records: R[], now: string): Promise<R[]> {
  if (records.length === 0) return [];
  const result = await sql<{ id: number }>`update campaign_recipients
    set status = 'SENT', sent_at = ${now}, claimed_until = null, last_error = null, attempts = attempts + 1,
      message_id = case id ${sql.join(
        records.map((r) => sql`when ${r.row.id} then ${r.messageId}`),
        sql` `,
      )} end
    where id in (${sql.join(records.map((r) => r.row.id))}) and status = 'CLAIMED'
    returning id`.execute(db);
  const changedIds = new Set(result.rows.map((r) => Number(r.id)));
  const changed = records.filter((r) => changedIds.has(r.row.id));
  const counts = new Map<number, { recipientId: number; sent: number }>();
  for (const { row } of changed) {
    const c = counts.get(row.campaign_id);
    if (c) c.sent++;
    else counts.set(row.campaign_id, { recipientId: row.id, sent: 1 });
  }
  for (const [campaignId, c] of counts) await addToCounters(db, campaignId, c.recipientId, { sent: c.sent });
  return changed;
}

/**
 * A 5xx to RCPT or DATA: sent and bounced (D13); the contact is BOUNCED (unless D17.5 keeps a
 * stronger status) and left out of later campaigns. Returns whether the row changed (a late duplicate record changes nothing).
 */
export async function markBounced(db: Db, r: ClaimedRecipient, messageId: string, error: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('campaign_recipients')
    .set((eb) => ({ status: 'BOUNCED', sent_at: now, bounced_at: now, message_id: messageId, claimed_until: null, last_error: error, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', r.id)
    .where('status', '=', 'CLAIMED')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await addToCounters(db, r.campaign_id, r.id, { sent: 1, bounced: 1 });
  // D17.5: the same rule as a provider's bounce: an unsubscribed or complained contact stays so.
  if (r.contact_id !== null) await applyStatusChange(db, r.contact_id, 'HARD_BOUNCE', now);
  // D19: and the address is never mailed again, whoever holds it.
  await suppressRecipientAddress(db, r.id, 'BOUNCE', error, now);
  return true;
}

/** Claimed recipients that will not be sent (D19: suppressed meanwhile): FAILED with the reason. */
export async function failClaimedRecipients(db: Db, ids: number[], reason: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('campaign_recipients').set({ status: 'FAILED', last_error: reason, claimed_until: null }).where('id', 'in', ids).where('status', '=', 'CLAIMED').execute();
}

/** A 4xx or no answer: back to PENDING until `retryAt`, or FAILED for good once out of attempts. */
export async function markDeferred(db: Db, id: number, error: string, retryAt: string | null): Promise<void> {
  await db
    .updateTable('campaign_recipients')
    .set((eb) => ({
      status: retryAt === null ? 'FAILED' : unsentStatus,
      next_attempt_at: retryAt,
      claimed_until: null,
      last_error: error,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', '=', id)
    .where('status', '=', 'CLAIMED')
    .execute();
}

/** A recipient that will not be sent (an automation step skipped or given up): FAILED with the reason. */
export async function markRecipientFailed(db: Db, recipientId: number, reason: string): Promise<void> {
  await db.updateTable('campaign_recipients').set({ status: 'FAILED', last_error: reason }).where('id', '=', recipientId).execute();
}

/**
 * An automation message's recipient row, CLAIMED: held by the runner (the dispatcher only claims
 * rows of SENDING campaigns); markSent and markBounced expect it. undefined when the campaign has
 * a message for this e-mail already (a concurrent run took it).
 */
export async function insertClaimedRecipient(db: Db, campaignId: number, contactId: number, email: string): Promise<number | undefined> {
  const row = await db
    .insertInto('campaign_recipients')
    .values({ campaign_id: campaignId, contact_id: contactId, email, status: 'CLAIMED' })
    .onConflict((oc) => oc.columns(['campaign_id', 'email']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/**
 * D19 retry-failed: the campaign's FAILED recipients whose contact is still SUBSCRIBED go back to
 * PENDING with their attempts reset (a recipient who left since is not mailed again). Returns how many.
 */
export async function requeueFailedRecipients(db: Db, campaignId: number): Promise<number> {
  const result = await db
    .updateTable('campaign_recipients')
    .set({ status: 'PENDING', attempts: 0, next_attempt_at: null, claimed_until: null })
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'FAILED')
    .where((eb) => eb.exists(eb.selectFrom('contacts').select('contacts.id').whereRef('contacts.id', '=', 'campaign_recipients.contact_id').where('contacts.status', '=', 'SUBSCRIBED').where('contacts.awaiting_confirmation', '=', 0)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Rows that will not be sent: waiting (PENDING, or HELD for an A/B winner), or claimed by a sender whose lease ended by `now`. */
const unsentBy = (now: string) => (eb: ExpressionBuilder<Database, 'campaign_recipients'>) =>
  eb.or([eb('status', 'in', ['PENDING', 'HELD']), eb.and([eb('status', '=', 'CLAIMED'), eb('claimed_until', '<=', now)])]);

/**
 * Issue 34, in the transaction that cancels the campaign: every recipient not yet sent is
 * CANCELLED. A row claimed by a live sender is in flight: its outcome is still recorded (D23), or
 * the sender gives it back and it becomes CANCELLED then (unsentStatus). Returns how many.
 */
export async function cancelUnsentRecipients(db: Db, campaignId: number, now: string): Promise<number> {
  const result = await db.updateTable('campaign_recipients').set({ status: 'CANCELLED', claimed_until: null }).where('campaign_id', '=', campaignId).where(unsentBy(now)).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Issue 34, each sending round: what a cancel could not reach becomes CANCELLED too, the rows of a
 * sender that died holding them (once their lease ends) and any row given back as the cancel
 * committed. Along the campaigns' status index and the recipients' (campaign_id, status) one.
 */
export async function settleCancelledRecipients(db: Db, now: string): Promise<void> {
  await db
    .updateTable('campaign_recipients')
    .set({ status: 'CANCELLED', claimed_until: null })
    .where('campaign_id', 'in', db.selectFrom('campaigns').select('campaigns.id').where('campaigns.status', '=', 'CANCELLED'))
    .where(unsentBy(now))
    .execute();
}

/** The ids of the account's campaigns, as a subquery: D21's erasure finds a person's rows by address within them. */
function campaignIdsOf(db: Db, accountId: number) {
  return db.selectFrom('campaigns').select('campaigns.id').where('campaigns.account_id', '=', accountId);
}

/**
 * D21's erasure of the address from the account's recipient rows. Rows not sent yet (pending, held
 * for an A/B winner, or claimed by a sender whose lease ran out) will never be: FAILED with
 * `reason`. Then every row's address becomes `erased-<row id>@erased.invalid` (unique per row, as
 * (campaign_id, email) must be; `.invalid` never resolves, RFC 6761). Statuses, times and counters
 * stay, so sent campaigns' statistics are exactly as they were. A row claimed by a live sender is
 * in flight: its outcome is still recorded when the server answers (D23).
 */
export async function eraseRecipientAddress(db: Db, accountId: number, email: string, reason: string, now: string): Promise<void> {
  const campaigns = campaignIdsOf(db, accountId);
  await db
    .updateTable('campaign_recipients')
    .set({ status: 'FAILED', last_error: reason, claimed_until: null })
    .where('campaign_id', 'in', campaigns)
    .where('email', '=', email)
    .where(unsentBy(now))
    .execute();
  await db
    .updateTable('campaign_recipients')
    .set({ email: sql<string>`'erased-' || id || '@erased.invalid'` })
    .where('campaign_id', 'in', campaigns)
    .where('email', '=', email)
    .execute();
}
