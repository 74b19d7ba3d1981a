import type { ColumnType, Generated } from 'kysely';
import type { Flag, NullableTimestamp, Timestamp } from './columns.ts';

/**
 * D25: transactional messages, one row per message: what it is (its content as given, to be
 * rendered when sent), where it stands (the sender's outbox for this lane, as campaign_recipients
 * is for campaigns) and what happened to it.
 */
export interface MessagesTable {
  id: Generated<number>;
  account_id: number;
  /** api | smtp (MESSAGE_SOURCES) */
  source: string;
  to_email: string;
  /** the account's contact with that address when the message was made (its merge fields, D16); null for any other address */
  contact_id: number | null;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  /** the subject as rendered when the message was accepted (what the API and the dashboard show) */
  subject: string;
  /** the subject as given, a Liquid template rendered again when the message is sent */
  subject_template: string;
  /** the HTML as given, or the starter's compiled HTML (D22): a Liquid template rendered when sent */
  html: string | null;
  text: string | null;
  template_id: number | null;
  /** JSON: `{{ data.x }}` */
  data: string;
  /** JSON array of `{ filename, content (base64), content_type }`, or null */
  attachments: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON object of X- headers */
  headers: string;
  tags: string;
  metadata: string;
  /** D25.7: the MIME source as submitted by SMTP, sent as it is plus the platform's headers; null for the API's messages */
  mime: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  track_opens: Flag;
  track_clicks: Flag;
  /** JSON array of the URLs click tokens index into, stored when the message is rendered to be sent */
  links: ColumnType<string | null, string | null | undefined, string | null>;
  status: string;
  error: string | null;
  scheduled_at: NullableTimestamp;
  /** when the sender may take it: its schedule, its creation, or its next retry */
  due_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  /** while a sender holds it: until when; a lapsed lease lets another sender take it (D13's crash rule) */
  claimed_until: NullableTimestamp;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
  opened_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  bounced_at: NullableTimestamp;
  /** D23: the first open and click by a person and by a machine (a privacy proxy, a link scanner, the trap link) */
  human_opened_at: NullableTimestamp;
  machine_opened_at: NullableTimestamp;
  human_clicked_at: NullableTimestamp;
  machine_clicked_at: NullableTimestamp;
  /** issue 14 L2: when the last message.opened event was emitted; repeat opens give one at most every 10 minutes */
  open_event_at: NullableTimestamp;
  /** when a spam complaint about it was first reported (no message.* event: D25.5 names none) */
  complained_at: NullableTimestamp;
}
