import type { Insertable, Updateable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.ts';
import type { CampaignRecipientsTable, CampaignsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';
import { addToCounters } from './campaign-stats.repo.ts';
import { readJson } from '../shared/json.ts';

/**
 * An automation's SEND_EMAIL step keeps its messages in a hidden campaign of status AUTOMATION
 * (see automation/automation-mail.ts), so tracking, unsubscribe and statistics work unchanged;
 * the campaigns API never shows one.
 */
export const AUTOMATION_CAMPAIGN_STATUS = 'AUTOMATION';

/** A campaign the API shows: not an automation's hidden one, not deleted (D17.3). */
/**
 * The campaign, its row locked until the transaction ends on PostgreSQL: two senders (or a
 * sender and the API) starting the same due campaign take turns, and the second sees it SENDING
 * rather than snapshotting its audience a second time (a unique-key error). SQLite's transactions
 * take turns already.
 */
export function findCampaignLocked(trx: Db, dialect: Dialect, accountId: number, id: number) {
  const query = trx.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('status', '!=', AUTOMATION_CAMPAIGN_STATUS).where('deleted_at', 'is', null);
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

export function findCampaign(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '!=', AUTOMATION_CAMPAIGN_STATUS)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function insertCampaign(db: Db, values: Insertable<CampaignsTable>) {
  return db.insertInto('campaigns').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateCampaign(db: Db, accountId: number, id: number, values: Updateable<CampaignsTable>) {
  return db.updateTable('campaigns').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteCampaign(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('campaigns').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** D17.3: gone from the API, kept for the links in mail already delivered. */
export async function markCampaignDeleted(db: Db, accountId: number, id: number, now: string): Promise<void> {
  await db.updateTable('campaigns').set({ deleted_at: now, scheduled_at: null }).where('account_id', '=', accountId).where('id', '=', id).execute();
}

export function findDueCampaigns(db: Db, now: string) {
  return db.selectFrom('campaigns').select(['id', 'account_id']).where('status', '=', 'SCHEDULED').where('scheduled_at', '<=', now).where('deleted_at', 'is', null).orderBy('scheduled_at').limit(100).execute();
}

export function findSendingCampaigns(db: Db) {
  return db.selectFrom('campaigns').selectAll().where('status', '=', 'SENDING').orderBy('id').execute();
}

/** The campaign's status now (issue 34: the sender asks whether it was paused or cancelled), or undefined when it is gone. */
export async function findCampaignStatus(db: Db, id: number): Promise<string | undefined> {
  return (await db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirst())?.status;
}

/**
 * A status change that happens only if the campaign is still in `from` (senders race to finish):
 * the changed row, or undefined when another got there first.
 */
export function finishCampaign(db: Db, id: number, from: string, values: Updateable<CampaignsTable>) {
  return db.updateTable('campaigns').set(values).where('id', '=', id).where('status', '=', from).returningAll().executeTakeFirst();
}

/** D6: newest first, ties by id descending. */
export async function pageCampaigns(db: Db, accountId: number, status: string | undefined, page: PageRequest) {
  let base = db.selectFrom('campaigns').where('account_id', '=', accountId).where('status', '!=', AUTOMATION_CAMPAIGN_STATUS).where('deleted_at', 'is', null);
  if (status) base = base.where('status', '=', status);
  return pageQuery(base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), base, page);
}

/**
 * Inserts recipient rows as they are (already sent, opened...), counting what they hold: for
 * seeding and imports. Sending itself creates rows by snapshot and counts as outcomes arrive.
 */
export async function insertRecipients(db: Db, rows: Insertable<CampaignRecipientsTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 50) {
    const inserted = await db.insertInto('campaign_recipients').values(rows.slice(i, i + 50)).returningAll().execute();
    for (const r of inserted) {
      const add = {
        ...(r.sent_at !== null ? { sent: 1 } : {}),
        ...(r.bounced_at !== null ? { bounced: 1 } : {}),
        ...(r.opened_at !== null ? { opened: 1 } : {}),
        ...(r.clicked_at !== null ? { clicked: 1 } : {}),
        ...(r.complained_at !== null ? { complained: 1 } : {}),
        ...(r.unsubscribed_at !== null ? { unsubscribed: 1 } : {}),
      };
      await addToCounters(db, r.campaign_id, r.id, add);
    }
  }
}

/** The link list a campaign's click tokens index into (JSON), or null when none is stored yet. */
export async function findCampaignLinks(db: Db, id: number): Promise<string | null | undefined> {
  const row = await db.selectFrom('campaigns').select('links').where('id', '=', id).executeTakeFirst();
  return row?.links;
}

/** What compiling a campaign needs, by id alone (a tracking link names no account). */
export function findCampaignContent(db: Db, id: number) {
  return db.selectFrom('campaigns').select(['subject', 'from_name', 'html', 'text', 'preheader', 'variants', 'compiled_html', 'compiled_variants']).where('id', '=', id).executeTakeFirst();
}

/**
 * Stores a campaign's link list once: a list already stored is kept (the links in mails sent
 * index into it). Returns the list in force.
 */
export async function storeCampaignLinks(db: Db, id: number, links: string): Promise<string> {
  await db.updateTable('campaigns').set({ links }).where('id', '=', id).where('links', 'is', null).execute();
  return (await findCampaignLinks(db, id)) ?? links;
}

/** A campaign by id alone, hidden ones included: what the sender and the automation runner render. */
export function findCampaignById(db: Db, id: number) {
  return db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** An automation step's hidden campaign (its name starts with `prefix`) that holds no message for `email` yet: the oldest. */
export async function findAutomationCampaignWithout(db: Db, accountId: number, prefix: string, email: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('campaigns')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', AUTOMATION_CAMPAIGN_STATUS)
    .where('name', 'like', `${prefix}%`)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('campaign_recipients as r').select('r.id').whereRef('r.campaign_id', '=', 'campaigns.id').where('r.email', '=', email))))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** How many generations of an automation step's hidden campaign exist. */
export async function countAutomationCampaigns(db: Db, accountId: number, prefix: string): Promise<number> {
  const row = await db
    .selectFrom('campaigns')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('status', '=', AUTOMATION_CAMPAIGN_STATUS)
    .where('name', 'like', `${prefix}%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** D22: the account's public archive, newest first: SENT campaigns marked `archive`, not deleted. */
export function pageArchivedCampaigns(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('campaigns').where('account_id', '=', accountId).where('archive', '=', 1).where('status', '=', 'SENT').where('deleted_at', 'is', null);
  return pageQuery(base.selectAll().orderBy('sent_at', 'desc').orderBy('id', 'desc'), base, page);
}

/** D22: one campaign of the account's public archive, or undefined when it is not in it. */
export function findArchivedCampaign(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('archive', '=', 1)
    .where('status', '=', 'SENT')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * D26.1: the account's SCHEDULED and SENDING campaigns that target the list, by name (DRAFT and
 * SENT ones do not hold a list), and PAUSED ones (issue 34): a paused send is a SENDING one that
 * resumes. `list_ids` is a JSON array: the text match narrows, the parsed array decides.
 */
export async function campaignsHoldingList(db: Db, accountId: number, listId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('campaigns')
    .select(['name', 'status', 'list_ids'])
    .where('account_id', '=', accountId)
    .where('status', 'in', ['SCHEDULED', 'SENDING', 'PAUSED'])
    .where('deleted_at', 'is', null)
    .where('list_ids', 'like', `%${listId}%`)
    .orderBy('id')
    .execute();
  return rows.filter((r) => readJson<number[]>(r.list_ids, []).includes(listId)).map((r) => `${r.status} campaign "${r.name}"`);
}
