import { sql } from 'kysely';
import type { Db } from '../../db/connect.ts';
import { keysetAfter, rankOf, type KeysetSlice } from '../../db/keyset.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';
import { AUTOMATION_CAMPAIGN_STATUS } from './campaigns.repo.ts';
import type { RecipientStatus } from './campaign-status.ts';

/**
 * Reads of campaign_recipients: what a send has left, the automatic stop's count, the ledger, the
 * rows a web view or a person's export looks up. Every write is in recipients.repo.ts, the
 * table's one writer.
 */

/** Rows not yet final: what a send still has to do (D23: HELD ones wait for an A/B test's winner). */
export async function countUnfinished(db: Db, campaignId: number): Promise<number> {
  const row = await db
    .selectFrom('campaign_recipients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('campaign_id', '=', campaignId)
    .where('status', 'in', ['PENDING', 'CLAIMED', 'HELD'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * D26.2: whether the campaign is sending now, or what its recipients left wait for. Reads of at
 * most one row each: in flight and due now along the (campaign_id, status) index (a due row is
 * near the front of a campaign that is sending); the earliest waiting one, asked only when none is
 * due, along the partial index of waiting rows (migration 0023).
 */
export async function readQueueState(db: Db, campaignId: number, now: string) {
  const rowsOf = (status: 'PENDING' | 'CLAIMED') => db.selectFrom('campaign_recipients').where('campaign_id', '=', campaignId).where('status', '=', status);
  const inFlight = await rowsOf('CLAIMED').select('id').where('claimed_until', '>', now).limit(1).executeTakeFirst();
  const due = await rowsOf('PENDING')
    .select('id')
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
    .limit(1)
    .executeTakeFirst();
  const next =
    due === undefined
      ? await rowsOf('PENDING').select('next_attempt_at').where('next_attempt_at', 'is not', null).where('next_attempt_at', '>', now).orderBy('next_attempt_at').limit(1).executeTakeFirst()
      : undefined;
  return { inFlight: inFlight !== undefined, dueNow: due !== undefined, nextDue: next?.next_attempt_at == null ? null : new Date(next.next_attempt_at).toISOString() };
}

/**
 * D23's automatic stop: of the campaign's latest `limit` messages sent since `since` (null: all),
 * how many went, bounced and drew a complaint. One query, read backwards along the
 * (campaign_id, sent_at) index: it touches at most `limit` rows however large the campaign.
 */
export async function countLatestOutcomes(db: Db, campaignId: number, since: string | Date | null, limit: number) {
  let latest = db.selectFrom('campaign_recipients').select(['id', 'bounced_at', 'complained_at', 'complaint_reporter']).where('campaign_id', '=', campaignId).where('sent_at', 'is not', null);
  if (since !== null) latest = latest.where('sent_at', '>=', since instanceof Date ? since.toISOString() : since);
  const row = await db
    .selectFrom(latest.orderBy('sent_at', 'desc').limit(limit).as('latest'))
    .select((eb) => [
      eb.fn.countAll<number>().as('sent'),
      eb.fn.count<number>('latest.bounced_at').as('bounced'),
      // Issue 28: complaints about delivered messages (not bounced), per distinct reporter; one
      // recorded before reporters were kept is its recipient's own.
      sql<number>`count(distinct case when ${eb.ref('latest.complained_at')} is not null and ${eb.ref('latest.bounced_at')} is null then coalesce(${eb.ref('latest.complaint_reporter')}, 'recipient:' || cast(${eb.ref('latest.id')} as text)) end)`.as('complained'),
    ])
    .executeTakeFirstOrThrow();
  return { sent: Number(row.sent), bounced: Number(row.bounced), complained: Number(row.complained) };
}

/** D17.9: recipients still to be sent, over campaigns that are SENDING (the (campaign_id, status) index answers each). */
export async function countPendingOfSendingCampaigns(db: Db): Promise<number> {
  const row = await db
    .selectFrom('campaign_recipients')
    .innerJoin('campaigns', 'campaigns.id', 'campaign_recipients.campaign_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('campaigns.status', '=', 'SENDING')
    .where('campaign_recipients.status', '=', 'PENDING')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** D22: what a web view (`/w/{token}`) renders again: whose message it was, of which campaign and variant. */
export function findRecipientView(db: Db, recipientId: number) {
  return db.selectFrom('campaign_recipients').select(['id', 'campaign_id', 'contact_id', 'email', 'variant']).where('id', '=', recipientId).executeTakeFirst();
}

export function findRecipientRef(db: Db, recipientId: number) {
  return db.selectFrom('campaign_recipients').select(['id', 'campaign_id', 'contact_id']).where('id', '=', recipientId).executeTakeFirstOrThrow();
}

/** D19's ledger filters; PENDING covers rows claimed by a sender but not yet recorded, and (D23) rows held for an A/B test's winner. */
export interface RecipientFilter {
  status?: RecipientStatus;
  opened?: boolean;
  clicked?: boolean;
}

/** D19: a campaign's recipients by id, with their outcome and engagement, filtered. */
export function pageRecipients(db: Db, campaignId: number, f: RecipientFilter, page: PageRequest) {
  let base = db.selectFrom('campaign_recipients').where('campaign_id', '=', campaignId);
  if (f.status !== undefined) base = base.where('status', 'in', f.status === 'PENDING' ? ['PENDING', 'CLAIMED', 'HELD'] : [f.status]);
  if (f.opened !== undefined) base = base.where('opened_at', f.opened ? 'is not' : 'is', null);
  if (f.clicked !== undefined) base = base.where('clicked_at', f.clicked ? 'is not' : 'is', null);
  const rows = base.select(['id', 'contact_id', 'email', 'status', 'attempts', 'last_error', 'sent_at', 'opened_at', 'clicked_at', 'unsubscribed_at', 'complained_at']).orderBy('id', 'asc');
  return pageQuery(rows, base, page);
}

/**
 * D21's export: the campaigns mailed (or to be mailed) to the address, oldest row first. An
 * automation's hidden campaigns are not listed here: its messages are in the runs' step logs.
 */
export function campaignsOfAddress(db: Db, accountId: number, email: string) {
  return db
    .selectFrom('campaign_recipients')
    .innerJoin('campaigns', 'campaigns.id', 'campaign_recipients.campaign_id')
    .select(['campaign_recipients.campaign_id', 'campaigns.name', 'campaign_recipients.sent_at', 'campaign_recipients.opened_at', 'campaign_recipients.clicked_at'])
    .where('campaigns.account_id', '=', accountId)
    .where('campaigns.status', '!=', AUTOMATION_CAMPAIGN_STATUS)
    .where('campaign_recipients.email', '=', email)
    .orderBy('campaign_recipients.id')
    .execute();
}

/** The times of a recipient row the contact timeline shows (issue 34), each a kind of its own. */
export type RecipientTimelineColumn = 'sent_at' | 'human_opened_at' | 'machine_opened_at' | 'human_clicked_at' | 'machine_clicked_at' | 'bounced_at' | 'complained_at' | 'unsubscribed_at';

/**
 * Issue 34: one kind of the contact's timeline, the messages with `column` set, newest first, at
 * most `slice.limit`: along the partial index (contact_id, column, id) of migration 0033. `detail`
 * is the campaign's status (an automation's messages have a hidden campaign); a deleted campaign has no name.
 */
export function recipientTimeline(db: Db, contactId: number, column: RecipientTimelineColumn, slice: KeysetSlice) {
  const time = `campaign_recipients.${column}` as const;
  return db
    .selectFrom('campaign_recipients')
    .innerJoin('campaigns', 'campaigns.id', 'campaign_recipients.campaign_id')
    .select((eb) => [
      rankOf(slice.rank).as('rank'),
      eb.ref(time).$castTo<string | Date>().as('at'),
      'campaign_recipients.id as id',
      'campaigns.id as ref_id',
      sql<string | null>`case when ${eb.ref('campaigns.deleted_at')} is null then ${eb.ref('campaigns.name')} end`.as('ref_name'),
      'campaigns.status as detail',
    ])
    .where('campaign_recipients.contact_id', '=', contactId)
    .where(time, 'is not', null)
    .where(keysetAfter(slice, time, 'campaign_recipients.id'))
    .orderBy(time, 'desc')
    .orderBy('campaign_recipients.id', 'desc')
    .limit(slice.limit);
}
