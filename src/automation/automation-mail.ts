import { createHash } from 'node:crypto';
import type { Db } from '../db/connect.ts';
import type { SendEmailStep } from '../domain/automations/automation-definition.ts';
import { AUTOMATION_CAMPAIGN_STATUS, countAutomationCampaigns, findAutomationCampaignWithout, insertCampaign } from '../domain/campaigns/campaigns.repo.ts';
import { insertClaimedRecipient } from '../domain/campaigns/recipients.repo.ts';

/**
 * A SEND_EMAIL step's messages live in a hidden campaign (status AUTOMATION, never listed by the
 * campaigns API), one per (automation, step, content): each message is a campaign recipient row,
 * so the signed open/click/unsubscribe links, bounce matching and statistics counters of the
 * sending issue apply unchanged. A campaign's click tokens index into its own content's links, so
 * a changed step gets a new campaign and links in mails already sent keep leading where they did.
 * A campaign holds one message per e-mail (D13); a contact re-entering a workflow that allows it
 * gets its next message in the next "generation" campaign of the same step.
 */
export async function createAutomationMessage(
  db: Db,
  run: { account_id: number; automation_id: number; contact_id: number },
  stepIndex: number,
  step: SendEmailStep,
  email: string,
  now: string,
): Promise<number> {
  const content = createHash('sha256').update(JSON.stringify(step)).digest('hex').slice(0, 16);
  const prefix = `automation:${run.automation_id}:step:${stepIndex}:${content}:`;
  for (;;) {
    // The first generation that has no message for this e-mail yet (one query, however many there are).
    let campaignId = await findAutomationCampaignWithout(db, run.account_id, prefix, email);
    if (campaignId === undefined) {
      const generations = await countAutomationCampaigns(db, run.account_id, prefix);
      campaignId = (
        await insertCampaign(db, {
          account_id: run.account_id,
          name: `${prefix}${generations}`,
          subject: step.subject,
          from_name: step.from_name,
          from_email: step.from_email,
          reply_to: null,
          preheader: null,
          html: step.html,
          text: step.text,
          // Issue 34 item 11: the step's format and layout, and its html as compiled when saved (D22), as a campaign's.
          format: step.format ?? 'html',
          template_id: step.template_id ?? null,
          compiled_html: step.compiled_html ?? null,
          list_ids: '[]',
          tags: '[]',
          status: AUTOMATION_CAMPAIGN_STATUS,
          created_at: now,
          updated_at: now,
        })
      ).id;
    }
    const recipientId = await insertClaimedRecipient(db, campaignId, run.contact_id, email);
    // Taken meanwhile by a concurrent run of the same contact (PostgreSQL): look again.
    if (recipientId !== undefined) return recipientId;
  }
}
