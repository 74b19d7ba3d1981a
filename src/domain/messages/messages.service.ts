import type { ActingContext } from '../shared/actor.ts';
import type { Insertable } from 'kysely';
import type { DbHandle } from '../../db/connect.ts';
import type { MessagesTable } from '../../db/schema.ts';
import { findContactByEmail } from '../contacts/contacts.repo.ts';
import { enqueueWebhookEvents } from '../outbound-webhooks/enqueue.ts';
import { findSuppressionOf } from '../suppressions/suppressions.repo.ts';
import { findTemplate } from '../templates/templates.repo.ts';
import { normaliseEmail } from '../shared/email-address.ts';
import { InvalidStateError, NotFoundError, TooLargeError, ValidationError } from '../shared/errors.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { parseInputTimestamp } from '../shared/time.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { messageEvent, toMessage } from './message-view.ts';
import {
  base64DecodedBytes,
  filenameProblem,
  headerProblem,
  isBase64,
  latestSchedule,
  MESSAGE_LIMITS,
  metadataBytes,
  type MessageAttachment,
  type MessageContact,
  type MessageSource,
  type MessageStatus,
  type TransactionalSource,
} from './message.ts';
import { cancelScheduledMessage, findMessage, insertMessages, pageMessages, type MessageFilter } from './messages.repo.ts';

/** D25.1's body, as the schema has checked its shape. */
export interface MessageInput {
  to: string;
  from_email: string;
  subject: string;
  html?: string | null;
  text?: string | null;
  template_id?: number | null;
  data?: Record<string, unknown>;
  from_name?: string | null;
  reply_to?: string | null;
  attachments?: MessageAttachment[];
  headers?: Record<string, string>;
  tags?: string[];
  metadata?: Record<string, string>;
  scheduled_at?: string | null;
  track_opens?: boolean;
  track_clicks?: boolean;
}

/** D25.7: one message as SMTP submission accepted it: its envelope facts and its source. */
export interface SubmittedMessage {
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  recipients: string[];
  mime: Buffer;
}

/**
 * Renders messages on the API's render thread (its turns by account and its time budget, issue
 * 28) and says, for each, why it cannot be rendered, or its subject as rendered. Passed in: the renderer is the
 * sending side's, which this area does not import.
 */
export type RenderCheck = (accountId: number, sources: TransactionalSource[]) => Promise<({ error: string } | { subject: string })[]>;

/** `data` as JSON at most this large: it is rendered into every part of the message. */
const DATA_BYTES_MAX = 65_536;

export const messageNotFound = () => new NotFoundError('MESSAGE_NOT_FOUND', 'message not found');

/** A message checked and ready to be stored, with what its render check needs. */
interface Prepared {
  row: Insertable<MessagesTable>;
  source: TransactionalSource;
  field: string;
}

/**
 * D25.1-D25.3: transactional messages. Every message is checked whole before anything is stored
 * (a batch all or nothing), rendered once on the render thread to find a render error before the
 * answer, and stored QUEUED, SCHEDULED or, for a suppressed address, SUPPRESSED with the reason.
 * The sender's lane sends the queued ones (sending/message-lane.ts).
 */
export class MessageService {
  constructor(
    private readonly handle: DbHandle,
    private readonly renderCheck: RenderCheck,
  ) {}

  async send(accountId: number, input: MessageInput) {
    const [message] = await this.store(accountId, [await this.prepare(accountId, input, '', new Date())]);
    return message;
  }

  /** D25.2: 1-100 messages, all checked first; any invalid one fails the batch, naming `messages[i].field`. */
  async sendBatch(accountId: number, inputs: MessageInput[]) {
    if (inputs.length < 1 || inputs.length > MESSAGE_LIMITS.batchMax) throw new ValidationError(`messages must hold 1-${MESSAGE_LIMITS.batchMax} messages`);
    const now = new Date();
    const prepared: Prepared[] = [];
    for (const [i, input] of inputs.entries()) {
      try {
        prepared.push(await this.prepare(accountId, input, `messages[${i}].`, now));
      } catch (err) {
        // D25.2: in a batch an unknown template is one more invalid message: 400, naming it.
        if (err instanceof NotFoundError) throw new ValidationError(`messages[${i}].template_id: ${err.message}`);
        throw err;
      }
    }
    return this.store(accountId, prepared);
  }

  /** D25.7: a message SMTP submission accepted: one message per recipient, its source kept as submitted. */
  async submit(accountId: number, submitted: SubmittedMessage) {
    const now = new Date();
    const prepared: Prepared[] = [];
    for (const [i, recipient] of submitted.recipients.entries()) {
      const to = normaliseEmail(recipient, `recipients[${i}]`);
      prepared.push(
        await this.prepared(accountId, now, 'smtp', `recipients[${i}].`, {
          to,
          from_email: submitted.from_email,
          from_name: submitted.from_name,
          reply_to: submitted.reply_to,
          subject: submitted.subject,
          html: null,
          text: null,
          template_id: null,
          data: {},
          attachments: null,
          headers: {},
          tags: [],
          metadata: {},
          scheduledAt: null,
          trackOpens: false,
          trackClicks: false,
          mime: submitted.mime,
        }),
      );
    }
    return this.store(accountId, prepared, false);
  }

  async page(accountId: number, filter: MessageFilter, page: PageRequest) {
    const { rows, total } = await pageMessages(this.handle.db, accountId, filter, page);
    return toPage('messages', rows.map(toMessage), total, page);
  }

  async get(accountId: number, id: number) {
    const row = await findMessage(this.handle.db, accountId, id);
    if (!row) throw messageNotFound();
    return toMessage(row);
  }

  /** D25.3: a SCHEDULED message becomes CANCELED; any other status is 409 INVALID_STATE. */
  async cancel(acting: ActingContext, accountId: number, id: number) {
    // D24.8: a cancel is recorded; each send is not (the messages list is that record, as deliveries are).
    const row = await this.handle.db.transaction().execute(async (trx) => {
      const canceled = await cancelScheduledMessage(trx, accountId, id);
      if (canceled) await recordAudit(trx, acting, accountId, 'message.canceled', { type: 'message', id });
      return canceled;
    });
    if (row) return toMessage(row);
    const current = await findMessage(this.handle.db, accountId, id);
    if (!current) throw messageNotFound();
    throw new InvalidStateError(`only a SCHEDULED message can be canceled; this one is ${current.status}`);
  }

  /** D25.1's checks of one message; `field` prefixes every field named (a batch's `messages[i].`). */
  private async prepare(accountId: number, input: MessageInput, field: string, now: Date): Promise<Prepared> {
    const to = normaliseEmail(input.to, `${field}to`);
    const hasContent = (input.html ?? null) !== null || (input.text ?? null) !== null;
    const templateId = input.template_id ?? null;
    if (templateId === null && !hasContent) throw new ValidationError(`${field}html: give template_id, html or text`);
    if (templateId !== null && (input.html ?? null) !== null) throw new ValidationError(`${field}html: give template_id or html, not both`);
    let html = input.html ?? null;
    if (templateId !== null) {
      // An id past 2^53 cannot exist; it is the caller's number that is wrong (D2), not a lookup's.
      if (!Number.isSafeInteger(templateId)) throw new ValidationError(`${field}template_id must be a positive integer id`);
      const template = await findTemplate(this.handle.db, accountId, templateId);
      if (!template) throw new NotFoundError('TEMPLATE_NOT_FOUND', `template ${templateId} not found`);
      if (template.kind !== 'starter') throw new ValidationError(`${field}template_id: template ${templateId} is a layout; a message takes a starter`);
      html = template.compiled_html ?? template.body;
    }
    const data = input.data ?? {};
    if (Buffer.byteLength(JSON.stringify(data)) > DATA_BYTES_MAX) throw new ValidationError(`${field}data must be at most ${DATA_BYTES_MAX} bytes as JSON`);
    return this.prepared(accountId, now, 'api', field, {
      to,
      from_email: normaliseEmail(input.from_email, `${field}from_email`),
      from_name: input.from_name ?? null,
      reply_to: input.reply_to ? normaliseEmail(input.reply_to, `${field}reply_to`) : null,
      subject: input.subject,
      html,
      text: input.text ?? null,
      template_id: templateId,
      data,
      attachments: checkAttachments(input.attachments ?? [], field),
      headers: checkHeaders(input.headers ?? {}, field),
      tags: input.tags ?? [],
      metadata: checkMetadata(input.metadata ?? {}, field),
      scheduledAt: checkSchedule(input.scheduled_at ?? null, field, now),
      trackOpens: input.track_opens ?? false,
      trackClicks: input.track_clicks ?? false,
      mime: null,
    });
  }

  /** The row and render source of a checked message: its contact's fields, and whether its address is suppressed (D19). */
  private async prepared(accountId: number, now: Date, origin: MessageSource, field: string, m: CheckedMessage): Promise<Prepared> {
    const { db } = this.handle;
    const contact = await findContactByEmail(db, accountId, m.to);
    const suppression = await findSuppressionOf(db, accountId, m.to);
    const status: MessageStatus = suppression ? 'SUPPRESSED' : m.scheduledAt ? 'SCHEDULED' : 'QUEUED';
    const created = now.toISOString();
    const row: Insertable<MessagesTable> = {
      account_id: accountId,
      source: origin,
      to_email: m.to,
      contact_id: contact?.id ?? null,
      from_email: m.from_email,
      from_name: m.from_name,
      reply_to: m.reply_to,
      subject: m.subject,
      subject_template: m.subject,
      html: m.html,
      text: m.text,
      template_id: m.template_id,
      data: writeJson(m.data),
      attachments: m.attachments ? writeJson(m.attachments) : null,
      headers: writeJson(m.headers),
      tags: writeJson(m.tags),
      metadata: writeJson(m.metadata),
      mime: m.mime,
      track_opens: m.trackOpens ? 1 : 0,
      track_clicks: m.trackClicks ? 1 : 0,
      status,
      error: suppression ? suppressedReason(suppression) : null,
      scheduled_at: m.scheduledAt,
      due_at: m.scheduledAt ?? created,
      created_at: created,
    };
    const mergeContact: MessageContact | null = contact
      ? { email: m.to, first_name: contact.first_name, last_name: contact.last_name, phone: contact.phone, custom_fields: readJson(contact.custom_fields, {}) }
      : null;
    const source: TransactionalSource = {
      id: 0,
      account_id: accountId,
      to_email: m.to,
      from_email: m.from_email,
      from_name: m.from_name,
      reply_to: m.reply_to,
      subject: m.subject,
      html: m.html,
      text: m.text,
      data: m.data,
      headers: m.headers,
      attachments: null,
      track_opens: m.trackOpens,
      track_clicks: m.trackClicks,
      contact: mergeContact,
      mime: null,
    };
    return { row, source, field };
  }

  /**
   * Renders every API message once (a render error is 400 naming it, and nothing is stored), then
   * stores them all in one transaction, with message.suppressed for the suppressed ones.
   */
  private async store(accountId: number, prepared: Prepared[], check = true) {
    if (check) {
      const checked = await this.renderCheck(accountId, prepared.map((p) => p.source));
      for (const [i, result] of checked.entries()) {
        if ('error' in result) throw new ValidationError(`${prepared[i].field}html: the message cannot be rendered: ${result.error}`);
        // What the API and the dashboard show: the subject as the recipient will read it.
        prepared[i].row.subject = result.subject;
      }
    }
    const rows = await this.handle.db.transaction().execute(async (trx) => {
      const inserted = await insertMessages(
        trx,
        prepared.map((p) => p.row),
      );
      await enqueueWebhookEvents(
        trx,
        inserted.filter((r) => r.status === 'SUPPRESSED').map((r) => messageEvent('message.suppressed', r, { error: r.error })),
      );
      return inserted;
    });
    return rows.map(toMessage);
  }
}

/** A message whose every field is checked, as prepared() stores it. */
interface CheckedMessage {
  to: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  template_id: number | null;
  data: Record<string, unknown>;
  attachments: MessageAttachment[] | null;
  headers: Record<string, string>;
  tags: string[];
  metadata: Record<string, string>;
  scheduledAt: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  mime: Buffer | null;
}

/** D25.1's `error` of a SUPPRESSED message: the list entry's source and reason. */
function suppressedReason(entry: { value: string; source: string; reason: string | null }): string {
  const what = entry.value.startsWith('@') ? `its domain (${entry.value})` : 'the address';
  return `not sent: ${what} is on the account's suppression list (${entry.source}${entry.reason ? `: ${entry.reason}` : ''})`;
}

function checkAttachments(attachments: MessageAttachment[], field: string): MessageAttachment[] | null {
  if (attachments.length === 0) return null;
  let bytes = 0;
  for (const [i, a] of attachments.entries()) {
    const problem = filenameProblem(a.filename);
    if (problem) throw new ValidationError(`${field}attachments[${i}].filename ${problem}`);
    if (!isBase64(a.content)) throw new ValidationError(`${field}attachments[${i}].content must be base64`);
    bytes += base64DecodedBytes(a.content);
  }
  if (bytes > MESSAGE_LIMITS.attachmentBytesMax) {
    throw new TooLargeError(`${field}attachments hold ${bytes} bytes decoded; at most ${MESSAGE_LIMITS.attachmentBytesMax} may be sent with one message`);
  }
  return attachments.map((a) => ({ filename: a.filename, content: a.content.replace(/\s/g, ''), content_type: a.content_type ?? null }));
}

function checkHeaders(headers: Record<string, string>, field: string): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MESSAGE_LIMITS.headersMax) throw new ValidationError(`${field}headers must hold at most ${MESSAGE_LIMITS.headersMax} headers`);
  for (const [name, value] of entries) {
    const problem = headerProblem(name, value);
    if (problem) throw new ValidationError(`${field}headers.${name.replace(/[\r\n]/g, ' ')} ${problem}`);
  }
  return headers;
}

function checkMetadata(metadata: Record<string, string>, field: string): Record<string, string> {
  if (metadataBytes(metadata) > MESSAGE_LIMITS.metadataBytesMax) throw new ValidationError(`${field}metadata must be at most ${MESSAGE_LIMITS.metadataBytesMax} bytes as JSON`);
  return metadata;
}

/** D25.1: at most 30 days ahead; absent or past means now (null). */
function checkSchedule(raw: string | null, field: string, now: Date): string | null {
  if (raw === null) return null;
  const at = parseInputTimestamp(`${field}scheduled_at`, raw);
  if (Date.parse(at) > latestSchedule(now).getTime()) throw new ValidationError(`${field}scheduled_at must be at most ${MESSAGE_LIMITS.scheduleDaysMax} days ahead`);
  return Date.parse(at) > now.getTime() ? at : null;
}
