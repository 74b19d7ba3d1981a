import { AutomationRunner } from './automation/runner.ts';
import { renderOptions, type Core } from './core.ts';
import { BounceMailboxPoller } from './feedback/bounce-mailbox.ts';
import { BounceReceiver } from './feedback/bounce-smtp-server.ts';
import { DomainSendLimiter } from './rate-limit/domain-send-limiter.ts';
import { Dispatcher } from './sending/dispatcher.ts';
import { MessageRenderer } from './sending/message-renderer.ts';
import { DbSendingStore } from './sending/sending-store.ts';
import { MessageLane } from './sending/message-lane.ts';
import type { AccountRateLimiter } from './rate-limit/account-rate-limiter.ts';
import { SubmissionServer } from './submission/smtp-submission-server.ts';
import type { DomainPacer } from './sending/paced-rows.ts';
import { WebhookDeliveryWorker } from './webhook-delivery/delivery-worker.ts';
import { PeriodicSweep } from './periodic-sweep.ts';

/** D24.8: the audit log's retention is in days; an hourly look keeps it within an hour of exact. */
const AUDIT_SWEEP_EVERY_MS = 3_600_000;

/**
 * Issue 29, item 3: the background work, built only by a process with the sender role (and by
 * tests, which drive it by hand): sending and scheduling, automation runs, webhook deliveries and
 * the bounce mailbox. An API-only process never builds them, so it holds none of their threads.
 */
export interface SenderWorkers {
  dispatcher: Dispatcher;
  /** D15's automation runs */
  automationRunner: AutomationRunner;
  webhookDelivery: WebhookDeliveryWorker;
  /** D23: the bounce mailbox poller (BOUNCE_IMAP_URL), null when not configured */
  bounceMailbox: BounceMailboxPoller | null;
  /** D24.8: deletes audit entries past AUDIT_RETENTION_DAYS, at start and hourly */
  auditSweep: PeriodicSweep;
  start(): void;
  /** Messages in flight finish and are recorded before this resolves. */
  stop(): Promise<void>;
}

export function createSenderWorkers(core: Core): SenderWorkers {
  const { config, handle, transport, logger, redis, metrics, dkimKeys } = core;
  // D23: per-recipient-domain caps, shared by every sender through Redis when it is set.
  const domainLimiter = new DomainSendLimiter(config.sending.domainRates, redis?.limiters, (domain) => metrics.messagesPaced.inc({ domain }));
  const renderer = new MessageRenderer(renderOptions(config), dkimKeys);
  // D25.4: transactional mail shares the sender's render thread, pace, transport and retry rule.
  const laneOf = (pacer: DomainPacer) => new MessageLane(handle, renderer, pacer, config.sending, logger);
  const dispatcher = new Dispatcher(new DbSendingStore(handle), core.campaignLifecycle, transport, renderer, config.sending, logger, domainLimiter, laneOf);
  // Automation mail renders on a thread of its own too (issue 14 H3), started on the first
  // SEND_EMAIL step: one message at a time, it would otherwise wait behind a campaign's batches.
  // Issue 28: its ADD_TO_LIST step mails D20's confirmation through `subscriptions`.
  const automationRunner = new AutomationRunner(handle, transport, new MessageRenderer(renderOptions(config), dkimKeys), config.sending, logger, core.subscriptions);
  const webhookDelivery = new WebhookDeliveryWorker(handle, config.webhooks, logger);
  const bounceMailbox = config.bounces.imap ? new BounceMailboxPoller(core.bounceMail, config.bounces.imap, logger) : null;
  const auditSweep = new PeriodicSweep(() => core.auditLog.sweep(), AUDIT_SWEEP_EVERY_MS, (err) => logger.error({ err }, 'sweeping the audit log failed; trying again within the hour'));
  return {
    dispatcher,
    automationRunner,
    webhookDelivery,
    bounceMailbox,
    auditSweep,
    start() {
      dispatcher.start();
      automationRunner.start();
      webhookDelivery.start();
      bounceMailbox?.start();
      auditSweep.start();
    },
    async stop() {
      await auditSweep.stop();
      await bounceMailbox?.stop();
      await dispatcher.stop();
      await automationRunner.stop();
      await webhookDelivery.stop();
    },
  };
}

/**
 * D23: the receiving SMTP server for bounces (BOUNCE_SMTP_PORT), null when not configured. It is
 * an inbound endpoint like the provider webhooks, so it is built where HTTP is served.
 */
export function createBounceReceiver(core: Core): BounceReceiver | null {
  const smtp = core.config.bounces.smtp;
  return smtp ? new BounceReceiver(core.bounceMail, smtp, core.logger) : null;
}

/**
 * D25.7: the SMTP submission endpoint (SMTP_SUBMISSION_PORT), null when not configured. An inbound
 * endpoint for apps, built where HTTP is served; its messages spend the account's API rate limit,
 * so it is given the HTTP app's limiter.
 */
export function createSubmissionServer(core: Core, rateLimiter: AccountRateLimiter): SubmissionServer | null {
  const submission = core.config.submission;
  return submission ? new SubmissionServer({ apiKeys: core.apiKeys, usage: core.usage, messages: core.messages, rateLimiter }, submission, core.logger) : null;
}
