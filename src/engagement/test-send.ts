import type { ActingContext } from '../domain/shared/actor.ts';
import { CampaignContentCompiler, contentFormat } from '../domain/campaigns/campaign-content.ts';
import { suppressedAmong } from '../domain/suppressions/suppressions.repo.ts';
import { createHash } from 'node:crypto';
import type { DbHandle } from '../db/connect.ts';
import { findCampaign } from '../domain/campaigns/campaigns.repo.ts';
import { campaignNotFound, requireContent } from '../domain/campaigns/campaign.ts';
import type { CampaignRow } from '../db/schema.ts';
import { checkTemplateLimits } from '../domain/content/template-limits.ts';
import { checkTemplateSyntax } from '../domain/content/template-syntax.ts';
import { SAMPLE_PERSON } from '../domain/content/content.ts';
import { deleteTestSend, deleteTestSendsBefore, insertTestSend, setTestSendLinks } from '../domain/campaigns/test-sends.repo.ts';
import { fieldSample, findContactById, findContactIdsByEmails, findFirstSubscribedMember } from '../domain/contacts/contacts.repo.ts';
import { contactNotFound } from '../domain/contacts/contact.ts';
import { variantsOf } from '../domain/campaigns/ab-test.ts';
import { normaliseEmail } from '../domain/shared/email-address.ts';
import { ValidationError } from '../domain/shared/errors.ts';
import { readJson, writeJson } from '../domain/shared/json.ts';
import { nowIso } from '../domain/shared/time.ts';
import { recordAudit } from '../domain/audit/audit.service.ts';
import { msAgo, TEST_SEND_TTL_MS } from './engagement.service.ts';
import { testMessageLinks } from '../sending/message.ts';
import { ContentError, type MessageRenderer } from '../sending/message-renderer.ts';
import type { RenderRecipient } from '../sending/render-worker.ts';
import type { MergeContact } from '../sending/render.ts';
import type { MailTransport, OutgoingMessage } from '../sending/transports/transport.ts';

/** Content the editor has not saved yet, previewed in place of the saved content. */
export type PreviewDraft = Partial<Pick<CampaignRow, 'subject' | 'preheader' | 'html' | 'text' | 'format' | 'template_id'>>;

/** Whose data fills the merge fields of a preview or a test to an address that is no contact. */
export type MergeSource = 'contact' | 'list member' | 'sample';

/** How many of the account's newest contacts a sample preview reads its custom field names from, and how many it fills. */
const SAMPLE_FIELD_CONTACTS = 1_000;
const MAX_SAMPLE_FIELDS = 100;

/** Issue 15: sample data when the campaign's lists have no one yet, so a preview never shows blanks. */
export const SAMPLE_CONTACT: Omit<MergeContact, 'email'> = { first_name: SAMPLE_PERSON.first_name, last_name: SAMPLE_PERSON.last_name, phone: SAMPLE_PERSON.phone, custom_fields: {} };

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
    /** D22: compiles unsaved content for a preview, as saving would */
    private readonly content?: CampaignContentCompiler,
  ) {}

  async send(acting: ActingContext, accountId: number, campaignId: number, rawEmails: string[]) {
    if (rawEmails.length < 1 || rawEmails.length > 10) throw new ValidationError('emails must hold 1-10 addresses');
    const emails = [...new Set(rawEmails.map((e, i) => normaliseEmail(e, `emails[${i}]`)))];
    const { db, dialect } = this.handle;
    const campaign = await findCampaign(db, accountId, campaignId);
    if (!campaign) throw campaignNotFound();
    requireContent(campaign);
    // D19: not even a test goes to a suppressed address.
    const suppressed = await suppressedAmong(db, accountId, emails);
    const refused = emails.findIndex((e) => suppressed.has(e));
    if (refused >= 0) throw new ValidationError(`emails[${refused}]: ${emails[refused]} is on the account's suppression list`);
    const ids = await findContactIdsByEmails(db, accountId, emails);
    const contacts: MergeContact[] = [];
    for (const email of emails) {
      const id = ids.get(email);
      const contact = id === undefined ? null : await findContactById(db, dialect, id);
      // An address that is no contact gets the first list member's data, or sample data: a test
      // with blank merge fields shows nothing of what recipients will see.
      contacts.push(contact ? { ...mergeFieldsOf(contact), email } : { ...(await this.standIn(campaign)).contact, email });
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
    // D24.8: recorded once the messages are ready to go (no address in the entry: the campaign is its target).
    await db.transaction().execute(async (trx) => {
      await setTestSendLinks(trx, testSendId, writeJson(testMessageLinks(messages[0]) ?? []));
      await recordAudit(trx, acting, accountId, 'campaign.test_sent', { type: 'campaign', id: campaignId });
    });

    const results = [];
    for (const message of messages) {
      const outcome = await this.transport.send(message);
      results.push({ email: message.to, outcome: outcome.kind, error: outcome.kind === 'sent' ? null : outcome.error });
    }
    return { results };
  }

  /**
   * D22 `POST /campaigns/{id}/preview`, asked for by the dashboard's editor (issue 15): the message
   * rendered for the contact with `email` (404 CONTACT_NOT_FOUND when the address is no contact of
   * the account), else the first list member, else sample data. Nothing is sent or stored, and it
   * is rendered neutrally (message.ts Rendering): no open pixel, its links as the content wrote
   * them, and unsubscribe, preference and web view links inert, so a preview tracks nothing and
   * unsubscribes no one. `variant` (D23) previews that variant over the base content.
   */
  async preview(accountId: number, campaignId: number, rawEmail: string | undefined, draft: PreviewDraft = {}, variant?: number) {
    const { db } = this.handle;
    const saved = await findCampaign(db, accountId, campaignId);
    if (!saved) throw campaignNotFound();
    // The editor previews what is typed before it is saved: the same limits and syntax check as saving.
    checkTemplateLimits({ html: draft.html, text: draft.text });
    checkTemplateSyntax({ subject: draft.subject, preheader: draft.preheader, html: draft.html, text: draft.text });
    // D23: the base content, unless a variant is asked for; the editor also previews a variant by sending its fields as the draft.
    const variantCount = variantsOf(saved)?.length ?? 0;
    if (variant !== undefined && variant >= variantCount) throw new ValidationError(variantCount ? `variant must be 0-${variantCount - 1}` : 'variant: this campaign has no variants');
    const campaign: CampaignRow = variant === undefined ? { ...saved, variants: null } : { ...saved };
    for (const field of ['subject', 'preheader', 'html', 'text'] as const) if (draft[field] !== undefined) campaign[field] = draft[field];
    if (draft.format !== undefined) campaign.format = contentFormat(draft.format);
    if (draft.template_id !== undefined) campaign.template_id = draft.template_id;
    // D22: unsaved html, format or layout is compiled here as saving would compile it (MJML errors
    // are 400 naming the line), so the preview shows what would be sent, not the source.
    if (draft.html !== undefined || draft.format !== undefined || draft.template_id !== undefined) {
      campaign.compiled_html = this.content ? (await this.content.compile(db, accountId, { ...campaign, variants: null })).compiled_html : null;
    }
    // The render thread keeps each campaign compiled per content version (its updated_at): unsaved
    // content is a version of its own, or the saved one's compiled templates would be shown.
    campaign.updated_at = `draft:${createHash('sha256').update(JSON.stringify([campaign.subject, campaign.preheader, campaign.html, campaign.compiled_html, campaign.text, campaign.variants])).digest('base64url')}`;
    return this.renderPreview(campaign, rawEmail, { variant: variant ?? null });
  }

  /**
   * A preview of content in the shape of a campaign row (a campaign's, or a workflow step's:
   * issue 34 item 11), rendered neutrally for the contact with `email` (404 when it is none of the
   * account's), else the first member of its lists, else sample data. `event` fills a workflow
   * step's `{{ event.<key> }}` (D26.7).
   */
  async renderPreview(campaign: CampaignRow, rawEmail: string | undefined, view: { variant?: number | null; event?: Record<string, unknown> } = {}) {
    const { db, dialect } = this.handle;
    let merge: { contact: Omit<MergeContact, 'email'> & { email: string }; source: MergeSource };
    if (rawEmail !== undefined) {
      const email = normaliseEmail(rawEmail, 'email');
      const id = (await findContactIdsByEmails(db, campaign.account_id, [email])).get(email);
      const contact = id === undefined ? null : await findContactById(db, dialect, id);
      if (!contact) throw contactNotFound();
      merge = { contact: { ...mergeFieldsOf(contact), email }, source: 'contact' };
    } else {
      merge = await this.standIn(campaign);
    }
    const contact = view.event === undefined ? merge.contact : { ...merge.contact, event: view.event };
    // A preview names no test send: rendered neutrally, its links carry no token at all.
    const [message] = await this.render({ ...campaign, subject: campaign.subject ?? '' }, 0, [contact], { rendering: 'neutral', variant: view.variant ?? null });
    return { subject: message.subject, html: message.html, text: message.text, merge_data: merge.source };
  }

  private async standIn(campaign: CampaignRow): Promise<{ contact: MergeContact; source: MergeSource }> {
    const member = await findFirstSubscribedMember(this.handle.db, campaign.account_id, readJson<number[]>(campaign.list_ids, []));
    if (member) return { contact: mergeFieldsOf(member), source: 'list member' };
    return { contact: { ...SAMPLE_CONTACT, custom_fields: await this.sampleFields(campaign.account_id), email: SAMPLE_PERSON.email }, source: 'sample' };
  }

  /**
   * D22: sample values for the custom fields the account's newest contacts hold (a text field shows
   * its own name, a number 42, a flag true), so a sample preview fills `{{ plan }}` too.
   */
  private async sampleFields(accountId: number): Promise<Record<string, unknown>> {
    const { custom } = await fieldSample(this.handle.db, this.handle.dialect, accountId, SAMPLE_FIELD_CONTACTS);
    const fields: Record<string, unknown> = {};
    for (const { key, type } of custom.slice(0, MAX_SAMPLE_FIELDS)) {
      if (key in fields) continue;
      fields[key] = type === 'integer' || type === 'real' || type === 'number' ? 42 : type === 'true' || type === 'false' || type === 'boolean' ? true : type === 'text' || type === 'string' ? key.replace(/_/g, ' ') : null;
    }
    return fields;
  }

  /** Every message, or 400 INVALID_REQUEST with the first reason one cannot be rendered. */
  private async render(campaign: Parameters<MessageRenderer['render']>[0], testSendId: number, contacts: MergeContact[], view: Pick<RenderRecipient, 'rendering' | 'variant'> = {}): Promise<OutgoingMessage[]> {
    let rendered;
    try {
      rendered = await this.renderer.render(
        campaign,
        contacts.map((contact) => ({ recipientId: { testSendId }, contact, ...view })),
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

function mergeFieldsOf(c: { email: string; first_name: string | null; last_name: string | null; phone: string | null; custom_fields: string | unknown }): MergeContact {
  return { email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone, custom_fields: readJson<Record<string, unknown>>(c.custom_fields as string, {}) };
}
