import type { Kysely } from 'kysely';

/**
 * Issue 28: `campaign_recipients.complaint_reporter`, who reported a recipient's complaint (the
 * connecting network of an ARF report, its sender's domain for a mailbox's copy, the recipient
 * itself for a provider's authenticated report), so the automatic stop counts complaints per
 * distinct reporter. Complaints recorded before it have none and count as their recipient's own.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('campaign_recipients').addColumn('complaint_reporter', 'text').execute();
}
