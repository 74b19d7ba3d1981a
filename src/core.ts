import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { connect, sqliteFile, type DbHandle } from './db/connect.ts';
import { ReadPool } from './db/read-pool.ts';
import { migrateToLatest } from './db/migrator.ts';
import { ApiKeyService } from './domain/api-keys/api-keys.service.ts';
import { KeyCache } from './domain/api-keys/key-cache.ts';
import { UsageRecorder } from './domain/api-keys/usage-recorder.ts';
import { AutomationService } from './domain/automations/automations.service.ts';
import { EventService } from './domain/automations/events.service.ts';
import { announceContactActivity } from './domain/automations/contact-activity.ts';
import { CampaignInsights } from './domain/campaigns/campaign-insights.service.ts';
import { CampaignLifecycleService } from './domain/campaigns/campaign-lifecycle.service.ts';
import { CampaignPresenter } from './domain/campaigns/campaign-lookup.ts';
import { CampaignReports } from './domain/campaigns/campaign-reports.service.ts';
import { CampaignService } from './domain/campaigns/campaigns.service.ts';
import { CampaignContentCompiler } from './domain/campaigns/campaign-content.ts';
import { ContentCompiler } from './domain/content/content-compiler.ts';
import { BulkImportService } from './domain/audience/bulk-import.service.ts';
import { ContactService } from './domain/audience/contacts.service.ts';
import { ContactTimelineService } from './domain/timeline/timeline.service.ts';
import { PersonalDataService } from './domain/personal-data/personal-data.service.ts';
import { SubscriptionService } from './domain/consent/subscriptions.service.ts';
import { ListService } from './domain/lists/lists.service.ts';
import { FormService } from './domain/forms/forms.service.ts';
import { CustomFieldDefinitionService } from './domain/contacts/custom-field-definitions.service.ts';
import { syncBuiltinTemplates } from './domain/templates/builtin-sync.ts';
import { TemplateService } from './domain/templates/templates.service.ts';
import { MessageService } from './domain/messages/messages.service.ts';
import { SegmentService } from './domain/segments/segments.service.ts';
import { campaignsHoldingList, findCampaign } from './domain/campaigns/campaigns.repo.ts';
import { formsHoldingList } from './domain/forms/forms.repo.ts';
import { SuppressionService } from './domain/suppressions/suppressions.service.ts';
import { SendingDomainService } from './domain/domains/sending-domains.service.ts';
import { MediaService } from './domain/media/media.service.ts';
import { txtLookup } from './domain/domains/txt-lookup.ts';
import { WebhookEndpointService } from './domain/outbound-webhooks/webhook-endpoints.service.ts';
import { CountingTransport, Metrics } from './metrics/metrics.ts';
import { TransportAccountMailer } from './sending/transport-account-mailer.ts';
import { UserService } from './domain/users/users.service.ts';
import { SsoService } from './domain/users/sso.service.ts';
import { PasswordResetService } from './domain/users/password-reset.service.ts';
import { TwoFactorService } from './domain/users/two-factor.service.ts';
import { OwnSecurityService } from './domain/users/own-security.service.ts';
import { MemberService } from './domain/users/members.service.ts';
import { InvitationService } from './domain/users/invitations.service.ts';
import { ConfirmationMailLimiter } from './rate-limit/confirmation-mail-limiter.ts';
import { connectRedis, type RedisLink } from './redis/redis.ts';
import { IdempotencyService } from './domain/idempotency/idempotency.service.ts';
import { MemoryHolds, RedisHolds } from './domain/idempotency/in-flight-holds.ts';
import { API_RENDER_QUEUE, MessageRenderer } from './sending/message-renderer.ts';
import { DkimKeys } from './sending/dkim.ts';
import { contentLinks, EngagementService } from './engagement/engagement.service.ts';
import { MessageEngagementService } from './engagement/message-engagement.service.ts';
import { TestSender } from './engagement/test-send.ts';
import { AutomationStepPreview } from './engagement/automation-preview.ts';
import { MessageViews } from './engagement/message-views.ts';
import { PreferenceCentre } from './engagement/preference-centre.service.ts';
import { TokenSigner } from './domain/shared/tokens.ts';
import { DevInboxTransport } from './sending/transports/dev-inbox.ts';
import { smtpTransportFor } from './sending/transports/smtp-servers.ts';
import type { MailTransport } from './sending/transports/transport.ts';
import type { RenderWorkerData } from './sending/render-worker.ts';
import { BounceMailService } from './feedback/bounce-mail.service.ts';
import { AuditLogService } from './domain/audit/audit.service.ts';

import { ProviderFeedbackService } from './feedback/provider-feedback.service.ts';

/**
 * Issue 29, item 3: the core every process builds, whatever its role: configuration, the logger,
 * the database and the services that hold the rules. The HTTP app (`buildApp`), the workers
 * (`workers.ts`, built only for the roles that run them), the CLI and its CSV commands all take
 * their parts from here, so each service is built one way, in one place.
 */
export interface Core {
  config: Config;
  logger: Logger;
  handle: DbHandle;
  /** issue 28 C2: reads a tenant shapes, off the HTTP thread and within a budget */
  reads: ReadPool;
  /** REDIS_URL's connection: shared rate limits and key invalidations; null on one machine */
  redis: RedisLink | null;
  keyCache: KeyCache;
  usage: UsageRecorder;
  /** D25.6: requests sent with an Idempotency-Key, kept answers and in-flight holds */
  idempotency: IdempotencyService;
  /** D17.9: what GET /metrics serves */
  metrics: Metrics;
  signer: TokenSigner;
  /** every message leaves through this one transport, counted (D17.9) */
  transport: MailTransport;
  /** D23: DKIM keys, for every renderer alike */
  dkimKeys: DkimKeys;
  apiKeys: ApiKeyService;
  /** dashboard users and their sessions */
  users: UserService;
  /** D24.7: single sign-on with OpenID Connect (OIDC_ISSUER); `configured` is false without it */
  sso: SsoService;
  /** D24.4: "forgot password" links */
  passwordResets: PasswordResetService;
  /** D24.6: TOTP two-factor sign-in and recovery codes */
  twoFactor: TwoFactorService;
  /** D24.5: a user's own password and sessions */
  ownSecurity: OwnSecurityService;
  /** D24.2: an account's members, their roles and removal */
  members: MemberService;
  /** D24.3: invitations to join an account; `acceptPendingFor` serves single sign-on */
  invitations: InvitationService;
  contacts: ContactService;
  /** D21: a person's data, exported or erased */
  personalData: PersonalDataService;
  /** issue 34: a contact's activity, newest first */
  timeline: ContactTimelineService;
  /** D20: memberships as people and callers ask for them, double opt-in, consent records */
  subscriptions: SubscriptionService;
  lists: ListService;
  /** D20: sign-up forms and their public /f/{uid} */
  forms: FormService;
  /** issue 34: custom field definitions (type, label, editable by the contact in the preference centre) */
  customFields: CustomFieldDefinitionService;
  /** D22: layouts and starters, the built-in gallery among them */
  templates: TemplateService;
  /** D25: transactional messages */
  messages: MessageService;
  segments: SegmentService;
  suppressions: SuppressionService;
  /** D23: sending domains, their DKIM keys and warm-up plans */
  domains: SendingDomainService;
  /** D22: the account's image library, files under DATA_DIR/media */
  media: MediaService;
  /** D14 bulk import: POST /v1/contacts/bulk and the CSV import */
  bulkImport: BulkImportService;
  events: EventService;
  automations: AutomationService;
  /** drafts and copies */
  campaigns: CampaignService;
  /** D13's transitions: what callers ask for, and what the scheduler and the sender make */
  campaignLifecycle: CampaignLifecycleService;
  /** statistics, recipients, links, content warnings and A/B variants */
  campaignReports: CampaignReports;
  /** dashboard views: audience estimate, send progress, engagement over time */
  campaignInsights: CampaignInsights;
  testSender: TestSender;
  /** issue 34 item 11: a workflow's SEND_EMAIL step previewed and checked as a campaign is */
  automationStepPreview: AutomationStepPreview;
  /** D22: the web view and the public archive */
  messageViews: MessageViews;
  /** outbound webhook endpoints and their delivery log */
  webhookEndpoints: WebhookEndpointService;
  engagement: EngagementService;
  /** issue 31: opens, clicks, bounces and complaints of transactional messages, by the campaigns' rules */
  messageEngagement: MessageEngagementService;
  /** D20's preference centre behind `/p/{token}`, with D21's actions */
  preferenceCentre: PreferenceCentre;
  /** D23: bounce mail, from the receiving SMTP server and the bounce mailbox alike */
  bounceMail: BounceMailService;
  /** bounces and complaints that providers report by webhook */
  providerFeedback: ProviderFeedbackService;
  /** D24.8: the audit log's reads and its retention sweep (entries are written by each service) */
  auditLog: AuditLogService;
  /** Ends what the core holds: threads, pools, connections; flushes the usage counters. Workers stop first. */
  close(): Promise<void>;
}

export interface CoreOptions {
  logger?: Logger;
  /**
   * A one-shot CLI command: no WAL checkpoint thread of its own (the server beside it has one, and
   * SQLite checkpoints when the command's connection closes).
   */
  oneShot?: boolean;
}

const LOG_BLOCK_BYTES = 4096;
const LOG_FLUSH_MS = 250;

/** Keys and passwords never reach the logs, whatever a log call is handed (the test server's logger uses the same). */
export const LOG_REDACT = {
  paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'key', '*.key', 'password', '*.password', 'token', '*.token', 'recovery_code', '*.recovery_code', 'recovery_codes', '*.recovery_codes', 'challenge', '*.challenge', 'secret', '*.secret', 'otpauth_url', '*.otpauth_url', '*.current_password', '*.new_password', 'privateKey', '*.privateKey', '*.dkim_private_key'],
  censor: '[redacted]',
};

export function createLogger(config: Config): Logger {
  return pino(
    { level: config.logLevel, redact: LOG_REDACT },
    // Written in the background, in blocks: lines wait until 4 KiB have gathered or a quarter of a
    // second has passed, whichever comes first. One write per access-log line (each a hand-off to
    // libuv's thread pool and a system call, CPU the main thread's profile does not show) cost a
    // request on GET /health about as much as the rest of the app (issue "The API hot path",
    // bench/RESULTS.md). pino flushes what is pending when the process exits; only a SIGKILL can
    // lose the last quarter second of lines.
    pino.destination({ dest: 1, sync: false, minLength: LOG_BLOCK_BYTES, periodicFlush: LOG_FLUSH_MS }),
  );
}

/** What every render thread is given: the same limits for all (issue 14 H3, H5). */
export function renderOptions(config: Config): RenderWorkerData {
  return { secret: config.secret, publicUrl: config.publicUrl, bounceDomain: config.bounces.domain, limits: { budgetMs: config.sending.renderBudgetMs, maxPartBytes: config.sending.renderMaxBytes } };
}

export async function createCore(config: Config, opts: CoreOptions = {}): Promise<Core> {
  const logger = opts.logger ?? createLogger(config);
  // The WAL is checkpointed off the HTTP thread: a checkpoint inside a COMMIT stalled every account (issue 28).
  const checkpointThread = opts.oneShot ? undefined : { onError: (reason: string) => logger.warn({ reason }, 'WAL checkpoint failed; the next one retries') };
  const handle = connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, checkpointThread });
  await migrateToLatest(handle);
  const reads = new ReadPool(handle, { ...config.readPool, sqliteFile: handle.dialect === 'sqlite' ? sqliteFile(config.dataDir) : null }, logger);
  // D22: the built-in templates are written from the code right after migrating (D26.4: their images on PUBLIC_URL).
  await syncBuiltinTemplates(handle.db, config.publicUrl);
  const keyCache = new KeyCache();
  const usage = new UsageRecorder(handle, logger, config.usageFlushMs);
  usage.start();
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, config.redisPrefix, keyCache, logger) : null;
  // D22: campaign content compiles on a thread of its own, started on the first save that needs it.
  const contentCompiler = new ContentCompiler();
  const campaignContent = new CampaignContentCompiler(contentCompiler, config.sending.renderMaxBytes);
  const presenter = new CampaignPresenter(config.publicUrl);
  const signer = new TokenSigner(config.secret);
  const metrics = new Metrics(handle.db, logger);
  const transport: MailTransport = new CountingTransport(
    config.smtp
      ? smtpTransportFor(config.smtp, { maxConnections: config.sending.smtpMaxConnections, messagesPerSecond: config.sending.messagesPerSecond }, logger)
      : new DevInboxTransport(handle.db, config.sending.devInboxMaxMessages),
    metrics,
  );
  // D23: campaign, test and automation mail all render with these keys, so all of it is DKIM-signed alike.
  const dkimKeys = new DkimKeys(handle);
  // Test sends render on a thread of their own (issue 14 H3), started on the first one: the API
  // waits on them, so they do not queue behind a campaign's batches on the sender's thread. Its
  // requests take turns by account (issue 28 H2): web views and the archive render here too.
  const apiRenderer = new MessageRenderer(renderOptions(config), dkimKeys, API_RENDER_QUEUE);
  const testSender = new TestSender(handle, transport, apiRenderer, campaignContent);
  const engagement = new EngagementService(handle);
  const messageEngagement = new MessageEngagementService(handle);
  const bounceMail = new BounceMailService(signer, engagement, messageEngagement, config.bounces, logger);
  // D20: double opt-in mail goes through the one transport, from MAIL_FROM, as account mail does.
  const accountMailer = new TransportAccountMailer(transport, config.mailFrom);
  const subscriptions = new SubscriptionService(handle, { signer, mailer: accountMailer, publicUrl: config.publicUrl, logger, limiter: new ConfirmationMailLimiter(redis?.limiters), announce: announceContactActivity });
  const personalData = new PersonalDataService(handle, logger);
  const contacts = new ContactService(handle, subscriptions, reads, announceContactActivity);
  const customFields = new CustomFieldDefinitionService(handle);
  const accountMail = { mailer: accountMailer, publicUrl: config.publicUrl };
  const users = new UserService(handle, accountMail, config.allowSignup);
  // D24.3: invitation mail goes as sign-up mail does, from MAIL_FROM through the one transport.
  const invitations = new InvitationService(handle, users, accountMail);
  return {
    idempotency: createIdempotency(config, handle, redis, logger),
    config,
    logger,
    handle,
    reads,
    redis,
    keyCache,
    usage,
    metrics,
    signer,
    transport,
    dkimKeys,
    apiKeys: new ApiKeyService(handle, keyCache, usage),
    users,
    sso: new SsoService({
      oidc: config.oidc,
      secret: config.secret,
      callbackUrl: `${config.publicUrl}/api/v1/auth/oidc/callback`,
      users,
      // D24.7: a verified address with a pending invitation joins through it.
      acceptPendingInvitation: (acting, email) => invitations.acceptPendingFor(acting, email),
      logger,
    }),
    passwordResets: new PasswordResetService(handle, accountMail, logger),
    twoFactor: new TwoFactorService(handle, users),
    ownSecurity: new OwnSecurityService(handle),
    members: new MemberService(handle),
    invitations,
    subscriptions,
    contacts,
    personalData,
    timeline: new ContactTimelineService(handle, reads),
    // D26.1: a list that forms or running campaigns use is not deleted or made private under them.
    lists: new ListService(handle, [formsHoldingList, campaignsHoldingList]),
    forms: new FormService(handle, contacts, subscriptions),
    customFields,
    templates: new TemplateService(handle, contentCompiler),
    messages: new MessageService(handle, (accountId, sources) => apiRenderer.checkTransactional(accountId, sources)),
    segments: new SegmentService(handle, reads, findCampaign),
    suppressions: new SuppressionService(handle),
    domains: new SendingDomainService(handle, txtLookup(config.dnsServers)),
    media: new MediaService(handle, config.dataDir, config.publicUrl, config.media),
    bulkImport: new BulkImportService(handle, announceContactActivity),
    events: new EventService(handle),
    automations: new AutomationService(handle, campaignContent),
    campaigns: new CampaignService(handle, contentLinks, campaignContent, presenter),
    campaignLifecycle: new CampaignLifecycleService(handle, contentLinks, campaignContent, reads, presenter),
    campaignReports: new CampaignReports(handle, contentLinks, campaignContent),
    campaignInsights: new CampaignInsights(handle, reads),
    webhookEndpoints: new WebhookEndpointService(handle, config.webhooks.allowPrivate),
    testSender,
    automationStepPreview: new AutomationStepPreview(handle, testSender, campaignContent),
    // D22: the web view and the archive render on the test sends' thread: the API waits on both.
    messageViews: new MessageViews(handle, apiRenderer, signer, engagement, metrics),
    engagement,
    messageEngagement,
    preferenceCentre: new PreferenceCentre(handle, engagement, subscriptions, personalData, { contacts, customFields }),
    bounceMail,
    auditLog: new AuditLogService(handle, config.auditRetentionDays),
    providerFeedback: new ProviderFeedbackService(signer, engagement, messageEngagement, { secret: config.secret, sendgridWebhookPublicKey: config.sendgridWebhookPublicKey }),
    async close() {
      await bounceMail.close();
      await apiRenderer.close();
      await contentCompiler.close();
      await reads.close();
      await transport.close();
      await usage.stop();
      await redis?.close();
      await handle.close();
    },
  };
}

/**
 * D25.6: holds shared through Redis when there is one (every instance sees them), else this
 * process's own. A hold outlives the longest a request may take, then lapses (a killed process's).
 */
function createIdempotency(config: Config, handle: DbHandle, redis: RedisLink | null, logger: Logger): IdempotencyService {
  const holds = redis ? new RedisHolds(redis.client, config.redisPrefix, Math.max(60_000, 2 * config.http.requestTimeoutMs)) : new MemoryHolds();
  const crashKey = config.testSigkillAfterCommitOfKey;
  const afterCommitOf = crashKey === null ? undefined : (key: string) => void (key === crashKey && process.kill(process.pid, 'SIGKILL'));
  return new IdempotencyService(handle, holds, logger, afterCommitOf);
}
