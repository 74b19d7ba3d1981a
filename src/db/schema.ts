import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Timestamps are written as ISO 8601 strings (UTC). SQLite keeps them as TEXT and returns strings;
 * PostgreSQL keeps timestamptz and returns Date objects. `toApiTimestamp` reads both.
 * Flags are INTEGER 0/1 on both dialects so one code path binds them (better-sqlite3 cannot bind booleans).
 * JSON documents (tags, custom fields, permissions) are TEXT on both dialects.
 */
export type Timestamp = ColumnType<string | Date, string, string>;
export type NullableTimestamp = ColumnType<string | Date | null, string | null | undefined, string | null>;
export type Flag = ColumnType<number, number | undefined, number>;
/** A JSON document written as JSON text: SQLite keeps the text, PostgreSQL `jsonb` and returns it parsed. `readJson` reads both. */
export type JsonDocument = ColumnType<string | object, string, string>;

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  plan: string;
  /** D22: unique, lowercase letters, digits and dashes (account-slug.ts); names the public archive */
  slug: string;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string | null;
  key_hash: string;
  masked_key: string;
  permissions: string;
  status: string;
  permanently_revoked: Flag;
  request_count: ColumnType<number, number | undefined, number>;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  expires_at: NullableTimestamp;
}

export interface ApiKeyEndpointUsageTable {
  key_id: number;
  method: string;
  route: string;
  count: number;
}

export interface ContactsTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  tags: JsonDocument;
  custom_fields: JsonDocument;
  lead_score: ColumnType<number, number | undefined, number>;
  status: string;
  /** issue 28 M3: 1 while its only consent is a double opt-in not yet confirmed (migration 0020) */
  awaiting_confirmation: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ListsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** trimmed, lower-cased name: what uniqueness within the account is decided on (D12) */
  name_key: string;
  description: string | null;
  is_active: Flag;
  /** kept in the same transaction as every membership change, so list pages need no COUNT */
  contact_count: ColumnType<number, number | undefined, number>;
  /** D20: `single` or `double` */
  opt_in: ColumnType<ListOptIn, ListOptIn | undefined, ListOptIn>;
  /** D20: shown in the preference centre and usable by forms */
  is_public: Flag;
  /** D20: the list's own confirmation mail, or null for the default */
  confirmation_subject: string | null;
  confirmation_text: string | null;
  /** issue 28 M2: the verified-domain address the list's own subject and text go from; null: the fixed mail */
  confirmation_from_email: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ListOptIn = 'single' | 'double';
/** D20: only SUBSCRIBED memberships receive mail and count (`lists.contact_count`). */
export type MembershipStatus = 'SUBSCRIBED' | 'UNCONFIRMED' | 'UNSUBSCRIBED';

export interface ListMembersTable {
  list_id: number;
  contact_id: number;
  status: ColumnType<MembershipStatus, MembershipStatus | undefined, MembershipStatus>;
  status_changed_at: NullableTimestamp;
  created_at: Timestamp;
}

/** D20: a subscription by form, API, import or confirmation. */
export interface ConsentsTable {
  id: Generated<number>;
  account_id: number;
  contact_id: number;
  source: 'FORM' | 'API' | 'IMPORT' | 'CONFIRMATION';
  form_id: number | null;
  /** JSON array of list ids */
  list_ids: ColumnType<string, string | undefined, string>;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
}

/** D20: a sign-up form, public at `/f/{uid}`. */
export interface FormsTable {
  id: Generated<number>;
  account_id: number;
  uid: string;
  name: string;
  /** JSON array of list ids */
  list_ids: string;
  /** JSON array of { name, label, required } */
  fields: string;
  success_message: string | null;
  redirect_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

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

/** D22: a layout or a starter; built-in ones have no account and a builtin_key. */
export interface TemplatesTable {
  id: Generated<number>;
  account_id: number | null;
  builtin_key: string | null;
  name: string;
  /** layout | starter */
  kind: string;
  /** html | mjml | markdown */
  format: string;
  body: string;
  /** the body compiled to HTML when saved */
  compiled_html: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** D22: an image in the account's media library, stored under DATA_DIR/media as file_name. */
export interface MediaTable {
  id: Generated<number>;
  account_id: number;
  file_name: string;
  name: string;
  content_type: string;
  size: ColumnType<number | string, number, number>;
  width: number | null;
  height: number | null;
  created_at: Timestamp;
}

/** D19: an address or `@domain` the account never mails. */
export interface SuppressionsTable {
  id: Generated<number>;
  account_id: number;
  /** a lower-cased address, or `@` and a lower-cased domain */
  value: string;
  reason: string | null;
  /** MANUAL, BOUNCE, COMPLAINT, UNSUBSCRIBE or ERASURE */
  source: string;
  created_at: Timestamp;
}

/** D23: a domain the account sends from, its DKIM key and its warm-up plan. */
export interface SendingDomainsTable {
  id: Generated<number>;
  account_id: number;
  /** lower-cased hostname */
  domain: string;
  selector: string;
  /** PEM (PKCS#8); never answered, never logged */
  dkim_private_key: string;
  /** base64 SPKI, the TXT record's p= */
  dkim_public_key: string;
  dkim_verified: Flag;
  spf_ok: Flag;
  dmarc_ok: Flag;
  checked_at: NullableTimestamp;
  found_dkim: string | null;
  found_spf: string | null;
  found_dmarc: string | null;
  warmup_enabled: Flag;
  warmup_start: number;
  warmup_factor: number;
  warmup_started_at: NullableTimestamp;
  created_at: Timestamp;
}

/** D23: messages claimed for sending per domain and UTC day, what the warm-up cap counts. */
export interface WarmupDaysTable {
  domain_id: number;
  /** YYYY-MM-DD, UTC */
  day: string;
  claimed: number;
}

/** D19: a recipient's clicks on one link of its message (the per-link report). */
export interface LinkClicksTable {
  recipient_id: number;
  campaign_id: number;
  link_index: number;
  clicks: ColumnType<number, number | undefined, number>;
  first_clicked_at: Timestamp;
}

/** D18: a saved filter over an account's contacts. */
export interface SegmentsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** trimmed, lower-cased name: uniqueness within the account ignores case, as for lists */
  name_key: string;
  description: string | null;
  /** the filter tree as JSON, checked when saved (segment-filter.ts) */
  filter: string;
  created_at: Timestamp;
  updated_at: Timestamp;
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

/** A test send (D13 `/test`): its tokens name the row and index into `links` (JSON), until 7 days after created_at (issue 14 L4). */
export interface TestSendsTable {
  id: Generated<number>;
  account_id: number;
  campaign_id: number;
  links: string;
  created_at: Timestamp;
}

export interface DevInboxTable {
  id: Generated<number>;
  account_id: number;
  campaign_id: number | null;
  message_id: string;
  from_address: string;
  to_address: string;
  subject: string;
  /** JSON object of the message's headers as they would go over SMTP */
  headers: string;
  html: string | null;
  text: string | null;
  /** the full MIME message */
  raw: string;
  created_at: Timestamp;
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

/** An account's outbound webhook endpoint; `secret` signs every delivery (shown once, at creation). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  secret: string;
  description: string | null;
  is_active: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The event types an endpoint is subscribed to, one row each. */
export interface WebhookEndpointEventsTable {
  endpoint_id: number;
  event_type: string;
}

/** One event for one endpoint: the delivery worker's outbox. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  payload: string;
  /** PENDING, DELIVERED or FAILED */
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  locked_until: NullableTimestamp;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  delivered_at: NullableTimestamp;
}

/** The delivery log: every attempt of a delivery. */
export interface WebhookDeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: Timestamp;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt: string | null;
}

/** D14: an event received by POST /v1/events, kept with the contact it was about. */
export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  contact_id: number | null;
  name: string;
  data: string;
  created_at: Timestamp;
}

/** D15: a workflow; `trigger_key` is what activities are matched on (see automation-definition.ts). */
export interface AutomationsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  trigger_type: string;
  trigger_key: string;
  /** JSON array of the steps */
  steps: string;
  allow_reentry: Flag;
  is_active: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One contact's way through a workflow: the runner's outbox row (claimed by lease, due by `due_at`). */
export interface AutomationRunsTable {
  id: Generated<number>;
  account_id: number;
  automation_id: number;
  contact_id: number;
  status: string;
  step_index: ColumnType<number, number | undefined, number>;
  /** 1 when the workflow does not allow re-entry: a unique partial index keeps one ACTIVE run per contact */
  single: number;
  trigger_type: string;
  event_data: string | null;
  due_at: Timestamp;
  lease_until: NullableTimestamp;
  ended_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
  /** JSON array of the workflow ids whose steps led to this run, `[]` when a change from outside started it (issue 14 C1) */
  chain: ColumnType<string, string | undefined, string>;
  /** the root run (started by a change from outside) this run descends from; null on a root (issue 28 H3) */
  origin_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Runs started and steps run per account per clock hour, the hourly automation budgets (issue 28 H3). */
export interface AutomationUsageTable {
  account_id: number;
  /** hours since the epoch (UTC) */
  hour: number;
  runs_started: ColumnType<number, number | undefined, number>;
  steps_run: ColumnType<number, number | undefined, number>;
}

/** A run's step log: one row per step, written in the same transaction as the step's effect. */
export interface AutomationRunStepsTable {
  id: Generated<number>;
  run_id: number;
  step_index: number;
  type: string;
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  detail: string | null;
  /** SEND_EMAIL: the message's campaign recipient row (tracking, unsubscribe, statistics) */
  recipient_id: number | null;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
}

/** A person who signs in to the dashboard; belongs to one account. */
export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  /** argon2id, in the PHC string form */
  password_hash: string;
  created_at: Timestamp;
}

/** A dashboard sign-in. `id` is the SHA-256 of the cookie's token (the token itself is never stored). */
export interface SessionsTable {
  id: string;
  user_id: number;
  account_id: number;
  csrf_token: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** Issue 14 L5: a sign-up waiting for its address to be confirmed. `id` is the SHA-256 of the mailed link's token. */
export interface SignupRequestsTable {
  id: string;
  email: string;
  /** argon2id, in the PHC string form */
  password_hash: string;
  account_name: string | null;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  api_key_endpoint_usage: ApiKeyEndpointUsageTable;
  contacts: ContactsTable;
  lists: ListsTable;
  list_members: ListMembersTable;
  campaigns: CampaignsTable;
  segments: SegmentsTable;
  suppressions: SuppressionsTable;
  consents: ConsentsTable;
  forms: FormsTable;
  templates: TemplatesTable;
  media: MediaTable;
  sending_domains: SendingDomainsTable;
  warmup_days: WarmupDaysTable;
  link_clicks: LinkClicksTable;
  campaign_recipients: CampaignRecipientsTable;
  test_sends: TestSendsTable;
  dev_inbox: DevInboxTable;
  campaign_stats: CampaignStatsTable;
  users: UsersTable;
  sessions: SessionsTable;
  signup_requests: SignupRequestsTable;
  events: EventsTable;
  automations: AutomationsTable;
  automation_runs: AutomationRunsTable;
  automation_run_steps: AutomationRunStepsTable;
  automation_usage: AutomationUsageTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_endpoint_events: WebhookEndpointEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type ContactRow = Selectable<ContactsTable>;
export type NewContact = Insertable<ContactsTable>;
export type ContactUpdate = Updateable<ContactsTable>;
export type ListRow = Selectable<ListsTable>;
export type FormRow = Selectable<FormsTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type MediaRow = Selectable<MediaTable>;
export type ConsentRow = Selectable<ConsentsTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type SegmentRow = Selectable<SegmentsTable>;
export type SuppressionRow = Selectable<SuppressionsTable>;
export type SendingDomainRow = Selectable<SendingDomainsTable>;
export type NewCampaignRecipient = Insertable<CampaignRecipientsTable>;
