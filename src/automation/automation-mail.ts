import { createHash } from 'node:crypto';
import type { Db } from '../db/connect.ts';
import type { Step } from '../domain/automations/automation-definition.ts';
import { AUTOMATION_CAMPAIGN_STATUS } from '../domain/campaigns/campaigns.repo.ts';

type SendEmailStep = Extract<Step, { type: 'SEND_EMAIL' }>;

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
    let campaign = await db
      .selectFrom('campaigns')
      .select('id')
      .where('account_id', '=', run.account_id)
      .where('status', '=', AUTOMATION_CAMPAIGN_STATUS)
      .where('name', 'like', `${prefix}%`)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('campaign_recipients as r').select('r.id').whereRef('r.campaign_id', '=', 'campaigns.id').where('r.email', '=', email))))
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!campaign) {
      const generations = await db
        .selectFrom('campaigns')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', run.account_id)
        .where('status', '=', AUTOMATION_CAMPAIGN_STATUS)
        .where('name', 'like', `${prefix}%`)
        .executeTakeFirstOrThrow();
      campaign = await db
        .insertInto('campaigns')
        .values({
          account_id: run.account_id,
          name: `${prefix}${Number(generations.n)}`,
          subject: step.subject,
          from_name: step.from_name,
          from_email: step.from_email,
          reply_to: null,
          preheader: null,
          html: step.html,
          text: step.text,
          list_ids: '[]',
          tags: '[]',
          status: AUTOMATION_CAMPAIGN_STATUS,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    }
    const recipient = await db
      .insertInto('campaign_recipients')
      // CLAIMED: held by the runner (the dispatcher only claims rows of SENDING campaigns); markSent and markBounced expect it.
      .values({ campaign_id: campaign.id, contact_id: run.contact_id, email, status: 'CLAIMED' })
      .onConflict((oc) => oc.columns(['campaign_id', 'email']).doNothing())
      .returning('id')
      .executeTakeFirst();
    // Taken meanwhile by a concurrent run of the same contact (PostgreSQL): look again.
    if (recipient) return recipient.id;
  }
}
