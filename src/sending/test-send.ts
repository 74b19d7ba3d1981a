import type { DbHandle } from '../db/connect.ts';
import { findCampaign } from '../domain/campaigns/campaigns.repo.ts';
import { campaignNotFound, requireContent } from '../domain/campaigns/campaigns.service.ts';
import { findContactIdsByEmails } from '../domain/contacts/contacts.repo.ts';
import { normaliseEmail } from '../domain/contacts/contact-fields.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import { readJson } from '../domain/shared/json.ts';
import { buildMessage } from './message.ts';
import { CompiledCampaign, type MergeContact } from './render.ts';
import type { TokenSigner } from './tokens.ts';
import type { MailTransport } from './transports/transport.ts';

/**
 * D13 `POST /campaigns/{id}/test`: the campaign as its recipients would get it, to 1-10
 * addresses, without touching its status or statistics. Merge fields come from the contact when
 * the address is one; its links name the campaign, not a recipient: they work, and count nowhere.
 */
export class TestSender {
  constructor(
    private readonly handle: DbHandle,
    private readonly transport: MailTransport,
    private readonly signer: TokenSigner,
    private readonly publicUrl: string,
  ) {}

  async send(accountId: number, campaignId: number, rawEmails: string[]) {
    if (rawEmails.length < 1 || rawEmails.length > 10) throw new ValidationError('emails must hold 1-10 addresses');
    const emails = [...new Set(rawEmails.map((e, i) => normaliseEmail(e, `emails[${i}]`)))];
    const campaign = await findCampaign(this.handle.db, accountId, campaignId);
    if (!campaign) throw campaignNotFound();
    requireContent(campaign);
    const compiled = new CompiledCampaign({ subject: `[Test] ${campaign.subject}`, html: campaign.html, text: campaign.text, preheader: campaign.preheader });
    const ids = await findContactIdsByEmails(this.handle.db, accountId, emails);
    const results = [];
    for (const email of emails) {
      const id = ids.get(email);
      const contact = id
        ? await this.handle.db.selectFrom('contacts').select(['email', 'first_name', 'last_name', 'phone', 'custom_fields']).where('id', '=', id).executeTakeFirstOrThrow()
        : null;
      const merge: MergeContact = contact
        ? { ...contact, custom_fields: readJson<Record<string, unknown>>(contact.custom_fields, {}) }
        : { email, first_name: null, last_name: null, phone: null, custom_fields: {} };
      const message = buildMessage({ campaign, compiled, signer: this.signer, publicUrl: this.publicUrl }, 'test', merge);
      const outcome = await this.transport.send(message);
      results.push({ email, outcome: outcome.kind, error: outcome.kind === 'sent' ? null : outcome.error });
    }
    return { results };
  }
}
