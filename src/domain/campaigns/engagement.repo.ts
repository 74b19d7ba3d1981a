import type { Db } from '../../db/connect.ts';

/**
 * Issue 14 L2: claims the right to emit an `email.opened` event for a recipient: true, and the
 * time stamped, when none was emitted since `notSince` (or ever). One guarded UPDATE, so
 * concurrent opens of one recipient emit one event between them.
 */
export async function claimOpenEvent(db: Db, recipientId: number, now: string, notSince: string): Promise<boolean> {
  const result = await db
    .updateTable('campaign_recipients')
    .set({ open_event_at: now })
    .where('id', '=', recipientId)
    .where((eb) => eb.or([eb('open_event_at', 'is', null), eb('open_event_at', '<=', notSince)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * D17.1: what the unsubscribe page shows for a sent message: the address it went to, the
 * contact's status now (null when the contact was deleted), and who sent it (the campaign's
 * from name, else the account's name).
 */
export function findUnsubscribePageFacts(db: Db, recipientId: number) {
  return db
    .selectFrom('campaign_recipients as r')
    .innerJoin('campaigns as c', 'c.id', 'r.campaign_id')
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .leftJoin('contacts as p', 'p.id', 'r.contact_id')
    .select(['r.contact_id', 'r.email', 'p.status', 'c.account_id', 'c.from_name', 'c.from_email', 'a.name as account_name'])
    .where('r.id', '=', recipientId)
    .where('r.sent_at', 'is not', null)
    .executeTakeFirst();
}

/** The engagement moments a recipient row records once each (D16's unique counts). */
export type EngagementMoment =
  | 'opened_at'
  | 'clicked_at'
  | 'unsubscribed_at'
  | 'complained_at'
  | 'bounced_at'
  | 'human_opened_at'
  | 'machine_opened_at'
  | 'human_clicked_at'
  | 'machine_clicked_at';

/** Sets a first-time moment; false when it was set before (a repeat changes nothing). */
export async function setFirstMoment(db: Db, recipientId: number, column: EngagementMoment, now: string): Promise<boolean> {
  const result = await db.updateTable('campaign_recipients').set({ [column]: now }).where('id', '=', recipientId).where(column, 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A recipient whose message was sent, with its campaign's account: what opens, clicks and unsubscribes act on. */
export function findSentRecipient(db: Db, recipientId: number) {
  return db
    .selectFrom('campaign_recipients as r')
    .innerJoin('campaigns as c', 'c.id', 'r.campaign_id')
    .select(['r.id', 'r.campaign_id', 'r.contact_id', 'r.opened_at', 'r.sent_at', 'r.email', 'r.message_id', 'c.account_id'])
    .where('r.id', '=', recipientId)
    .where('r.sent_at', 'is not', null)
    .executeTakeFirst();
}

/** A recipient a bounce or complaint names, sent or not (the caller tells the provider to retry while it is in flight). */
export function findFeedbackRecipient(db: Db, recipientId: number) {
  return db
    .selectFrom('campaign_recipients as r')
    .innerJoin('campaigns as c', 'c.id', 'r.campaign_id')
    .select(['r.id', 'r.campaign_id', 'r.contact_id', 'r.status', 'r.sent_at', 'r.bounced_at', 'r.email', 'r.message_id', 'c.account_id'])
    .where('r.id', '=', recipientId)
    .executeTakeFirst();
}

/** Issue 28: who reported the recipient's complaint, written with its complained_at. */
export async function setComplaintReporter(db: Db, recipientId: number, reporter: string): Promise<void> {
  await db.updateTable('campaign_recipients').set({ complaint_reporter: reporter }).where('id', '=', recipientId).execute();
}

/** A provider's hard bounce of a SENT message: the row becomes BOUNCED, once. */
export async function markSentRecipientBounced(db: Db, recipientId: number): Promise<boolean> {
  const result = await db.updateTable('campaign_recipients').set({ status: 'BOUNCED' }).where('id', '=', recipientId).where('status', '=', 'SENT').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** D19: one more click of a recipient on a link; its first makes the row (a unique click). */
export async function countLinkClick(db: Db, campaignId: number, recipientId: number, linkIndex: number, now: string): Promise<void> {
  await db
    .insertInto('link_clicks')
    .values({ recipient_id: recipientId, campaign_id: campaignId, link_index: linkIndex, clicks: 1, first_clicked_at: now })
    .onConflict((oc) => oc.columns(['recipient_id', 'link_index']).doUpdateSet((eb) => ({ clicks: eb('link_clicks.clicks', '+', 1) })))
    .execute();
}

/** D19: clicks and unique clicks per link index of a campaign. */
export async function linkClickTotals(db: Db, campaignId: number) {
  const rows = await db
    .selectFrom('link_clicks')
    .select(['link_index', (eb) => eb.fn.sum<number>('clicks').as('clicks'), (eb) => eb.fn.countAll<number>().as('unique_clicks')])
    .where('campaign_id', '=', campaignId)
    .groupBy('link_index')
    .execute();
  return new Map(rows.map((r) => [Number(r.link_index), { clicks: Number(r.clicks), unique_clicks: Number(r.unique_clicks) }]));
}
