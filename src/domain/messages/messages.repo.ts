import { sql, type Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { MessagesTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';
import type { MessageStatus } from './message.ts';

/** D25: every statement on `messages`. */

/** What a page of messages may be narrowed to (D25.3). */
export interface MessageFilter {
  status?: MessageStatus;
  to?: string;
  tag?: string;
  since?: string;
  until?: string;
}

/** The columns the API answers with: never the content, attachments or MIME source. */
const LISTED = [
  'id',
  'account_id',
  'source',
  'status',
  'to_email',
  'from_email',
  'subject',
  'tags',
  'metadata',
  'scheduled_at',
  'created_at',
  'sent_at',
  'opened_at',
  'clicked_at',
  'bounced_at',
  'error',
] as const;

export async function insertMessages(db: Db, rows: Insertable<MessagesTable>[]) {
  if (rows.length === 0) return [];
  return db.insertInto('messages').values(rows).returning(LISTED).execute();
}

export function findMessage(db: Db, accountId: number, id: number) {
  return db.selectFrom('messages').select(LISTED).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** D25.3: newest first. `tag` matches one element of the JSON array (tags are `[A-Za-z0-9_-]`, so the quoted form is exact). */
export function pageMessages(db: Db, accountId: number, filter: MessageFilter, page: PageRequest) {
  let base = db.selectFrom('messages').where('account_id', '=', accountId);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.to) base = base.where('to_email', '=', filter.to);
  if (filter.tag) base = base.where('tags', 'like', `%${JSON.stringify(filter.tag)}%`);
  if (filter.since) base = base.where('created_at', '>=', filter.since);
  if (filter.until) base = base.where('created_at', '<', filter.until);
  return pageQuery(base.select(LISTED).orderBy('id', 'desc'), base, page);
}

/** D25.3: SCHEDULED → CANCELED; the row as it now is, or undefined when it was not SCHEDULED. */
export function cancelScheduledMessage(db: Db, accountId: number, id: number) {
  return db
    .updateTable('messages')
    .set({ status: 'CANCELED' })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'SCHEDULED')
    .where('claimed_until', 'is', null)
    .returning(LISTED)
    .executeTakeFirst();
}

/** What the sender needs of a message it claims: everything but the listed answer's extras. */
export type ClaimedMessageRow = Awaited<ReturnType<typeof claimMessages>>[number];

/**
 * D25.4: the lane's claim. Up to `limit` due messages (oldest due first), and messages whose lease
 * ended by `now`, are held until `leaseUntil` and become QUEUED; no two senders hold the same.
 */
/**
 * Up to `limit` accounts that have messages the lane may take, in account order after `after`
 * (the lane's rotation), then from the start again. Each step is one seek on
 * messages_account_due_idx (a loose index scan), so the walk costs the accounts it finds, not
 * their rows. An account whose messages are all scheduled later is found too; its claim below
 * finds nothing.
 */
export async function accountsWithQueuedMessages(db: Db, after: number, limit: number): Promise<number[]> {
  const walk = async (from: number, max: number) => {
    const { rows } = await sql<{ account_id: number | string }>`
      with recursive walk(account_id, n) as (
        select (select account_id from messages where status in ('QUEUED', 'SCHEDULED') and account_id > ${from} order by account_id, due_at limit 1), 1
        union all
        select (select m.account_id from messages m where m.status in ('QUEUED', 'SCHEDULED') and m.account_id > walk.account_id order by m.account_id, m.due_at limit 1), n + 1
        from walk where walk.account_id is not null and n < ${max}
      )
      select account_id from walk where account_id is not null`.execute(db);
    return rows.map((r) => Number(r.account_id));
  };
  const found = await walk(after, limit);
  if (found.length < limit && after > 0) for (const id of await walk(0, limit - found.length)) if (id <= after && !found.includes(id)) found.push(id);
  return found;
}

/** The ids of an account's oldest due messages that no sender holds, at most `limit`. */
export async function dueMessageIdsOf(db: Db, accountId: number, limit: number, now: string): Promise<number[]> {
  const rows = await db
    .selectFrom('messages')
    .select('id')
    .where('account_id', '=', accountId)
    .where(sql<boolean>`status in ('QUEUED', 'SCHEDULED')`)
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .orderBy('due_at')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Claims the messages `ids` (from dueMessageIdsOf) that are still due and free: the WHERE checks
 * again, so when two senders chose the same rows only one gets each (PostgreSQL re-reads a row
 * another transaction changed before updating it).
 */
export async function claimMessages(db: Db, ids: number[], now: string, leaseUntil: string) {
  if (ids.length === 0) return [];
  return db
    .updateTable('messages')
    .set({ status: 'QUEUED', claimed_until: leaseUntil })
    .where('id', 'in', ids)
    .where(sql<boolean>`status in ('QUEUED', 'SCHEDULED')`)
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returning([
      'id',
      'account_id',
      'source',
      'to_email',
      'contact_id',
      'from_email',
      'from_name',
      'reply_to',
      'subject_template',
      'html',
      'text',
      'data',
      'attachments',
      'headers',
      'tags',
      'metadata',
      'mime',
      'track_opens',
      'track_clicks',
      'attempts',
      'created_at',
    ])
    .execute();
}

/** The lane's messages still held: their lease goes on. */
export async function renewMessageLeases(db: Db, ids: number[], leaseUntil: string): Promise<void> {
  if (ids.length > 0) await db.updateTable('messages').set({ claimed_until: leaseUntil }).where('id', 'in', ids).where('status', '=', 'QUEUED').execute();
}

/** Held messages not sent go back as they were, due at `due` (now, or a pace's next token). */
export async function releaseMessages(db: Db, ids: number[], due?: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('messages')
    .set(due ? { claimed_until: null, due_at: due } : { claimed_until: null })
    .where('id', 'in', ids)
    .where('status', '=', 'QUEUED')
    .execute();
}

/**
 * The mail server took them: SENT, in one statement for the group (as campaign rows are: one
 * UPDATE per message was most of the sender's database time), and the link lists of the tracked
 * ones. The Message-ID is not stored: it is `<t{id}.{signature}@{from domain}>`, made again from
 * the id when needed (transactionalMessageId). The attachments and a submitted source are only
 * needed to send: kept no longer than that. The rows this call changed (a late duplicate changes
 * none).
 */
export async function markMessagesSent(db: Db, sent: { id: number; links: string | null }[], now: string) {
  if (sent.length === 0) return [];
  const changed = await db
    .updateTable('messages')
    .set({ status: 'SENT', sent_at: now, claimed_until: null, error: null, attachments: null, mime: null, attempts: sql`attempts + 1` })
    .where(
      'id',
      'in',
      sent.map((r) => r.id),
    )
    .where('status', '=', 'QUEUED')
    .returning(['id', 'account_id', 'to_email', 'tags', 'metadata'])
    .execute();
  for (const { id, links } of sent) if (links !== null) await db.updateTable('messages').set({ links }).where('id', '=', id).execute();
  return changed;
}

/** A 5xx at SMTP time: BOUNCED (it was sent, and refused). */
export function markMessageBouncedAtSend(db: Db, id: number, error: string, now: string) {
  return db
    .updateTable('messages')
    .set({ status: 'BOUNCED', sent_at: now, bounced_at: now, error, claimed_until: null, attempts: sql`attempts + 1`, attachments: null, mime: null })
    .where('id', '=', id)
    .where('status', '=', 'QUEUED')
    .returning(['id', 'account_id', 'to_email', 'tags', 'metadata'])
    .executeTakeFirst();
}

/** A 4xx or no answer: due again at `retryAt`, or FAILED with the reason when it is null. The row when FAILED by this call. */
export function markMessageDeferred(db: Db, id: number, error: string, retryAt: string | null) {
  const set = retryAt === null ? { status: 'FAILED', error, claimed_until: null, attempts: sql<number>`attempts + 1`, attachments: null, mime: null } : { error, due_at: retryAt, claimed_until: null, attempts: sql<number>`attempts + 1` };
  return db
    .updateTable('messages')
    .set(set)
    .where('id', '=', id)
    .where('status', '=', 'QUEUED')
    .returning(['id', 'account_id', 'to_email', 'tags', 'metadata', 'status'])
    .executeTakeFirst();
}

/** D21: an erased person's transactional messages go with their other personal data. */
export async function deleteMessagesTo(db: Db, accountId: number, email: string): Promise<void> {
  await db.deleteFrom('messages').where('account_id', '=', accountId).where('to_email', '=', email).execute();
}
