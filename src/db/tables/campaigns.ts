import type { ColumnType, Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Flag } from './columns.ts';

/** Campaigns, their recipients (the sender's outbox), counters, clicks and test sends. */

export interface CampaignsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  subject: string | null;
  from_name: string | null;
  from_email: string | null;
  reply_to: string | null;
  preheader: string | null;
  html: string | null;
  text: string | null;
  list_ids: string;
  tags: string;
  status: string;
  scheduled_at: NullableTimestamp;
  total_recipients: ColumnType<number, number | undefined, number>;
  sent_at: NullableTimestamp;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** JSON array of the URLs click tokens index into, stored when sending starts (issue 14 H2); null before */
  links: ColumnType<string | null, string | null | undefined, string | null>;
  /** D17.3: set when a campaign that had sent mail is deleted; the API then never shows it */
  deleted_at: ColumnType<string | Date | null, string | null | undefined, string | null>;
  /** D18: JSON array of the segment ids the campaign targets beside its lists */
  segment_ids: ColumnType<string, string | undefined, string>;
  /** D18: a follow-up's audience, JSON `{ campaign_id, audience }`; null for other campaigns */
  follow_up: ColumnType<string | null, string | null | undefined, string | null>;
  /** D23: JSON array of 2-4 variants over the base content, else null */
  variants: ColumnType<string | null, string | null | undefined, string | null>;
  /** D23: JSON `{ test_percent, metric, wait_minutes }`, else null */
  ab_test: ColumnType<string | null, string | null | undefined, string | null>;
  /** D23: TESTING, WAITING or DECIDED once an A/B campaign starts sending (ab-test.ts), else null */
  ab_phase: ColumnType<string | null, string | null | undefined, string | null>;
  /** D23: when the wait after the test share ends */
  ab_wait_until: NullableTimestamp;
  /** D23: the chosen variant's index once DECIDED */
  ab_winner: ColumnType<number | null, number | null | undefined, number | null>;
  /** D23: JSON `{ days, start, end, timezone }`: when the campaign may send; null: any time */
  send_window: ColumnType<string | null, string | null | undefined, string | null>;
  /** D23: the automatic stop counts outcomes of messages sent since this (set when sending starts or resumes); null: since the first */
  outcomes_counted_from: NullableTimestamp;
  /** D22: html | mjml | markdown: the format `html` (and each variant's html) is written in */
  format: ColumnType<string, string | undefined, string>;
  /** D22: the layout the content is wrapped in, or null */
  template_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** D22: 1 when the campaign is shown in the account's public archive once SENT */
  archive: Flag;
  /** D22: the content compiled, laid out and CSS-inlined: what the sender renders; null: use `html` as it is */
  compiled_html: ColumnType<string | null, string | null | undefined, string | null>;
  /** D22: JSON array, each A/B variant's html compiled the same way (null where a variant has no html of its own) */
  compiled_variants: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * One row per (campaign, recipient): the sender's outbox and the source of the statistics.
 * `contact_id` is set to NULL when the contact is deleted; the row, its e-mail and its
 * engagement times stay, so a sent campaign's statistics never change (D11).
 */
export interface CampaignRecipientsTable {
  id: Generated<number>;
  campaign_id: number;
  contact_id: number | null;
  email: string;
  status: string;
  message_id: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: NullableTimestamp;
  claimed_until: NullableTimestamp;
  last_error: string | null;
  sent_at: NullableTimestamp;
  opened_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  bounced_at: NullableTimestamp;
  complained_at: NullableTimestamp;
  /** issue 28: who reported the complaint (feedback/reporter.ts); the stop counts distinct ones */
  complaint_reporter: ColumnType<string | null, string | null | undefined, string | null>;
  unsubscribed_at: NullableTimestamp;
  /** D23: the first open and click of each kind (machine: a privacy proxy or a link scanner) */
  human_opened_at: NullableTimestamp;
  machine_opened_at: NullableTimestamp;
  human_clicked_at: NullableTimestamp;
  machine_clicked_at: NullableTimestamp;
  /** when this recipient's last email.opened event was emitted (issue 14 L2: repeats at most every 10 minutes) */
  open_event_at: NullableTimestamp;
  /** D23: the A/B variant this recipient gets (its test share, or the winner); null without variants */
  variant: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Statistics counters per campaign, sharded; the statistics are their sums. */
export interface CampaignStatsTable {
  campaign_id: number;
  shard: number;
  sent: ColumnType<number, number | undefined, number>;
  bounced: ColumnType<number, number | undefined, number>;
  opened: ColumnType<number, number | undefined, number>;
  clicked: ColumnType<number, number | undefined, number>;
  complained: ColumnType<number, number | undefined, number>;
  unsubscribed: ColumnType<number, number | undefined, number>;
  human_opened: ColumnType<number, number | undefined, number>;
  machine_opened: ColumnType<number, number | undefined, number>;
  human_clicked: ColumnType<number, number | undefined, number>;
  machine_clicked: ColumnType<number, number | undefined, number>;
}

/** D19: a recipient's clicks on one link of its message (the per-link report). */
export interface LinkClicksTable {
  recipient_id: number;
  campaign_id: number;
  link_index: number;
  clicks: ColumnType<number, number | undefined, number>;
  first_clicked_at: Timestamp;
}

/** A test send (D13 `/test`): its tokens name the row and index into `links` (JSON), until 7 days after created_at (issue 14 L4). */
export interface TestSendsTable {
  id: Generated<number>;
  account_id: number;
  campaign_id: number;
  links: string;
  created_at: Timestamp;
}
