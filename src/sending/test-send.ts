import type { DbHandle } from '../db/connect.ts';
import { findCampaign } from '../domain/campaigns/campaigns.repo.ts';
import { campaignNotFound, requireContent } from '../domain/campaigns/campaigns.service.ts';
import { deleteTestSend, deleteTestSendsBefore, insertTestSend, setTestSendLinks } from '../domain/campaigns/test-sends.repo.ts';
import { findContactById, findContactIdsByEmails } from '../domain/contacts/contacts.repo.ts';
import { normaliseEmail } from '../domain/contacts/contact-fields.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import { readJson, writeJson } from '../domain/shared/json.ts';
import { nowIso } from '../domain/shared/time.ts';
import { msAgo, TEST_SEND_TTL_MS } from './engagement.service.ts';
import { testMessageLinks } from './message.ts';
import { ContentError, type MessageRenderer } from './message-renderer.ts';
import type { MergeContact } from './render.ts';
import type { MailTransport, OutgoingMessage } from './transports/transport.ts';

/**
 * D13 `POST /campaigns/{id}/test`: the campaign as its recipients would get it, to 1-10
 * addresses, without touching its status or statistics. Merge fields come from the contact when
 * the address is one; its links name the test send, not a recipient: they work, count nowhere,
 * lead to the links the test message held (not to what the draft says later), and expire after
 * 7 days (issue 14 H2, L4).
 *
 * The messages are rendered on a render thread, as campaign messages are (issue 14 H3): a heavy
 * draft costs that thread, not the one that answers HTTP. Content that cannot be rendered is the
 * caller's to fix: 400 with the reason, and nothing is sent (L7).
 */
export class TestSender {
  constructor(
    private readonly handle: DbHandle,
    private readonly transport: MailTransport,
    private readonly renderer: MessageRenderer,
  ) {}

  async send(accountId: number, campaignId: number, rawEmails: string[]) {
    if (rawEmails.length < 1 || rawEmails.length > 10) throw new ValidationError('emails must hold 1-10 addresses');
    const emails = [...new Set(rawEmails.map((e, i) => normaliseEmail(e, `emails[${i}]`)))];
    const { db, dialect } = this.handle;
    const campaign = await findCampaign(db, accountId, campaignId);
    if (!campaign) throw campaignNotFound();
    requireContent(campaign);
    const ids = await findContactIdsByEmails(db, accountId, emails);
    const contacts: MergeContact[] = [];
    for (const email of emails) {
      const id = ids.get(email);
      const contact = id === undefined ? null : await findContactById(db, dialect, id);
      contacts.push(
        contact
          ? { email, first_name: contact.first_name, last_name: contact.last_name, phone: contact.phone, custom_fields: readJson<Record<string, unknown>>(contact.custom_fields, {}) }
          : { email, first_name: null, last_name: null, phone: null, custom_fields: {} },
      );
    }

    // Expired test sends answer 404 already; their rows go as new ones come.
    await deleteTestSendsBefore(db, msAgo(TEST_SEND_TTL_MS));
    const testSendId = await insertTestSend(db, { account_id: accountId, campaign_id: campaignId, created_at: nowIso() });
    let messages: OutgoingMessage[];
    try {
      messages = await this.render(campaign, testSendId, contacts);
    } catch (err) {
      await deleteTestSend(db, testSendId);
      throw err;
    }
    // Kept before any message goes out, so every link in them leads somewhere from the start.
    await setTestSendLinks(db, testSendId, writeJson(testMessageLinks(messages[0]) ?? []));

    const results = [];
    for (const message of messages) {
      const outcome = await this.transport.send(message);
      results.push({ email: message.to, outcome: outcome.kind, error: outcome.kind === 'sent' ? null : outcome.error });
    }
    return { results };
  }

  /** Every message, or 400 INVALID_REQUEST with the first reason one cannot be rendered. */
  private async render(campaign: Parameters<MessageRenderer['render']>[0], testSendId: number, contacts: MergeContact[]): Promise<OutgoingMessage[]> {
    let rendered;
    try {
      rendered = await this.renderer.render(
        campaign,
        contacts.map((contact) => ({ recipientId: { testSendId }, contact })),
      );
    } catch (err) {
      if (err instanceof ContentError) throw new ValidationError(`the content cannot be rendered: ${err.message}`);
      throw err;
    }
    return rendered.map((result, i) => {
      if ('renderError' in result) throw new ValidationError(`the message to ${contacts[i].email} cannot be rendered: ${result.renderError}`);
      return result;
    });
  }
}
