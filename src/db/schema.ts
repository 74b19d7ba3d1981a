import type { Insertable, Selectable, Updateable } from 'kysely';
import type { AccountsTable, ApiKeyEndpointUsageTable, ApiKeysTable, IdempotencyKeysTable, SessionsTable, SignupRequestsTable, UsersTable } from './tables/accounts.ts';
import type { ConsentsTable, ContactsTable, CustomFieldDefinitionsTable, FormsTable, ListMembersTable, ListOptIn, ListsTable, MembershipStatus, SegmentsTable, SuppressionsTable } from './tables/audience.ts';
import type { CampaignRecipientsTable, CampaignStatsTable, CampaignsTable, LinkClicksTable, TestSendsTable } from './tables/campaigns.ts';
import type { MediaTable, TemplatesTable } from './tables/content.ts';
import type { DevInboxTable, SendingDomainsTable, WarmupDaysTable } from './tables/sending.ts';
import type { AutomationRunStepsTable, AutomationRunsTable, AutomationUsageTable, AutomationsTable, EventsTable } from './tables/automations.ts';
import type { MessagesTable } from './tables/messages.ts';
import type { AuditLogTable, InvitationsTable, PasswordResetsTable, RecoveryCodesTable, TotpChallengesTable } from './tables/teams.ts';
import type { WebhookDeliveriesTable, WebhookDeliveryAttemptsTable, WebhookEndpointEventsTable, WebhookEndpointsTable } from './tables/webhooks.ts';

/**
 * The database as Kysely sees it: every table, its column types in tables/<area>.ts. Callers import
 * the table and row types from here, whichever file declares them.
 */
export type { Flag, JsonDocument, NullableTimestamp, Timestamp } from './tables/columns.ts';
export type { AccountsTable, ApiKeyEndpointUsageTable, ApiKeysTable, IdempotencyKeysTable, SessionsTable, SignupRequestsTable, UsersTable } from './tables/accounts.ts';
export type { ConsentsTable, ContactsTable, CustomFieldDefinitionsTable, FormsTable, ListMembersTable, ListOptIn, ListsTable, MembershipStatus, SegmentsTable, SuppressionsTable } from './tables/audience.ts';
export type { CampaignRecipientsTable, CampaignStatsTable, CampaignsTable, LinkClicksTable, TestSendsTable } from './tables/campaigns.ts';
export type { MediaTable, TemplatesTable } from './tables/content.ts';
export type { AuditLogTable, InvitationsTable, PasswordResetsTable, RecoveryCodesTable, TotpChallengesTable } from './tables/teams.ts';
export type { DevInboxTable, SendingDomainsTable, WarmupDaysTable } from './tables/sending.ts';
export type { AutomationRunStepsTable, AutomationRunsTable, AutomationUsageTable, AutomationsTable, EventsTable } from './tables/automations.ts';
export type { MessagesTable } from './tables/messages.ts';
export type { WebhookDeliveriesTable, WebhookDeliveryAttemptsTable, WebhookEndpointEventsTable, WebhookEndpointsTable } from './tables/webhooks.ts';

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
  custom_field_definitions: CustomFieldDefinitionsTable;
  templates: TemplatesTable;
  media: MediaTable;
  sending_domains: SendingDomainsTable;
  warmup_days: WarmupDaysTable;
  link_clicks: LinkClicksTable;
  campaign_recipients: CampaignRecipientsTable;
  messages: MessagesTable;
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
  idempotency_keys: IdempotencyKeysTable;
  invitations: InvitationsTable;
  password_resets: PasswordResetsTable;
  totp_challenges: TotpChallengesTable;
  recovery_codes: RecoveryCodesTable;
  audit_log: AuditLogTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type ContactRow = Selectable<ContactsTable>;
export type NewContact = Insertable<ContactsTable>;
export type ContactUpdate = Updateable<ContactsTable>;
export type ListRow = Selectable<ListsTable>;
export type FormRow = Selectable<FormsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type MediaRow = Selectable<MediaTable>;
export type ConsentRow = Selectable<ConsentsTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type SegmentRow = Selectable<SegmentsTable>;
export type SuppressionRow = Selectable<SuppressionsTable>;
export type SendingDomainRow = Selectable<SendingDomainsTable>;
export type NewCampaignRecipient = Insertable<CampaignRecipientsTable>;
