/* Pure (no database, no Node): the schemas, the SMTP submission and the dashboard import it. */

/**
 * D25: a transactional message, one mail to one address, sent by an application (a receipt, a
 * password reset) through the API or SMTP submission. It is not marketing: it reaches
 * UNSUBSCRIBED contacts and addresses that are no contact, carries no List-Unsubscribe header and
 * no unsubscribe footer, and obeys only the suppression list (D19).
 */

/**
 * D25.1's states. SCHEDULED → QUEUED (or CANCELED) → SENT or FAILED; SENT → BOUNCED; SUPPRESSED at
 * once for a suppressed address. A message the sender holds stays QUEUED (under a lease).
 */
export const MESSAGE_STATUSES = ['SCHEDULED', 'QUEUED', 'CANCELED', 'SENT', 'FAILED', 'BOUNCED', 'SUPPRESSED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Where the message came from: the API (D25.1) or SMTP submission (D25.7). */
export const MESSAGE_SOURCES = ['api', 'smtp'] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];

/** Only a SCHEDULED message can be canceled (D25.3): any other is 409 INVALID_STATE. */
export function canCancel(status: MessageStatus): boolean {
  return status === 'SCHEDULED';
}

/** D25.1 and D25.2's limits, in one place for the schemas, the service and the dashboard. */
export const MESSAGE_LIMITS = {
  attachmentsMax: 10,
  /** decoded bytes of all attachments of one message together (over: 413) */
  attachmentBytesMax: 10_485_760,
  /** what the messages routes read: 10 MiB of attachments as base64 is about 13.4 MiB */
  bodyBytesMax: 16 * 1024 * 1024,
  filenameMax: 255,
  headersMax: 20,
  headerNameMax: 76,
  headerValueMax: 998,
  tagsMax: 10,
  tagPattern: '^[A-Za-z0-9_-]{1,50}$',
  metadataMax: 20,
  metadataBytesMax: 2_048,
  scheduleDaysMax: 30,
  batchMax: 100,
  subjectMax: 998,
  /** each of html and text, as given */
  contentBytesMax: 2 * 1024 * 1024,
  /** D25.7: an SMTP-submitted message's size, and its recipients */
  smtpMessageBytesMax: 10 * 1024 * 1024,
  smtpRecipientsMax: 50,
} as const;

/** D25.1: attachment names with these extensions are refused (any letter case). */
export const EXECUTABLE_EXTENSIONS = ['exe', 'bat', 'cmd', 'com', 'js', 'vbs', 'scr', 'jar', 'msi', 'ps1'] as const;

/** Why a filename is refused, or null when it may be sent. */
export function filenameProblem(filename: string): string | null {
  if (filename.trim() === '') return 'must not be empty';
  if (/[/\\]/.test(filename)) return 'must not hold a path separator (/ or \\)';
  // A NUL or line break in a name would end up in a MIME header.
  if (/[\u0000-\u001f\u007f]/.test(filename)) return 'must not hold control characters';
  const dot = filename.lastIndexOf('.');
  const extension = dot < 0 ? '' : filename.slice(dot + 1).toLowerCase();
  if ((EXECUTABLE_EXTENSIONS as readonly string[]).includes(extension)) return `must not be an executable (.${extension})`;
  return null;
}

/** Why a custom header is refused (D25.1: `X-` names only, no CR or LF anywhere), or null. */
export function headerProblem(name: string, value: string): string | null {
  if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) return 'must not hold CR or LF';
  // RFC 5322 field names: printable ASCII but the colon.
  if (!/^[!-9;-~]+$/.test(name)) return 'must be a header name of printable characters without a colon';
  if (!/^x-/i.test(name)) return 'must be a name starting with X- (other headers are the platform\'s to set)';
  if (name.length > MESSAGE_LIMITS.headerNameMax) return `must be a name of at most ${MESSAGE_LIMITS.headerNameMax} characters`;
  if (value.length > MESSAGE_LIMITS.headerValueMax) return `must be a value of at most ${MESSAGE_LIMITS.headerValueMax} characters`;
  return null;
}

/** The bytes a base64 text decodes to, without decoding it (padding and any whitespace aside). */
export function base64DecodedBytes(content: string): number {
  const clean = content.replace(/[\s=]/g, '');
  return Math.floor((clean.length * 3) / 4);
}

export function isBase64(content: string): boolean {
  return /^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(content);
}

/** D25.1: `scheduled_at` is at most this far ahead of `now`. */
export function latestSchedule(now: Date): Date {
  return new Date(now.getTime() + MESSAGE_LIMITS.scheduleDaysMax * 24 * 3600 * 1000);
}

/** The bytes of a metadata object as JSON (D25.1: at most 2,048). */
export function metadataBytes(metadata: Record<string, string>): number {
  return new TextEncoder().encode(JSON.stringify(metadata)).length;
}

/** D16's merge fields of the contact a message is to, when `to` is one (structurally the renderer's MergeContact). */
export interface MessageContact {
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  custom_fields: Record<string, unknown>;
}

/** D25.1: an attachment as the API takes it and the row keeps it (content in base64). */
export interface MessageAttachment {
  filename: string;
  content: string;
  content_type?: string | null;
}

/**
 * What the render thread needs of a transactional message (D25) to make its mail. `id` 0 is a
 * message not yet stored, rendered only to check it renders (the API does, before answering).
 */
export interface TransactionalSource {
  id: number;
  account_id: number;
  to_email: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  data: Record<string, unknown>;
  headers: Record<string, string>;
  attachments: MessageAttachment[] | null;
  track_opens: boolean;
  track_clicks: boolean;
  /** D16's fields when `to` is a contact of the account; else only the address is known */
  contact: MessageContact | null;
  /** D25.7: the MIME source as submitted by SMTP; the message is sent as it is, with the platform's headers added */
  mime: Uint8Array | null;
}

