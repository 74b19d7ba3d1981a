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

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  plan: string;
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
  tags: string;
  custom_fields: string;
  lead_score: ColumnType<number, number | undefined, number>;
  status: string;
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
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ListMembersTable {
  list_id: number;
  contact_id: number;
  created_at: Timestamp;
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
  unsubscribed_at: NullableTimestamp;
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
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  api_key_endpoint_usage: ApiKeyEndpointUsageTable;
  contacts: ContactsTable;
  lists: ListsTable;
  list_members: ListMembersTable;
  campaigns: CampaignsTable;
  campaign_recipients: CampaignRecipientsTable;
  dev_inbox: DevInboxTable;
  campaign_stats: CampaignStatsTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type ContactRow = Selectable<ContactsTable>;
export type NewContact = Insertable<ContactsTable>;
export type ContactUpdate = Updateable<ContactsTable>;
export type ListRow = Selectable<ListsTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type NewCampaignRecipient = Insertable<CampaignRecipientsTable>;
