import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { countActiveRuns } from '../domain/automations/automations.repo.ts';
import { countPendingOfSendingCampaigns } from '../domain/campaigns/recipient-reads.repo.ts';
import { countPendingDeliveries } from '../domain/outbound-webhooks/deliveries.repo.ts';
import type { MailTransport, OutgoingMessage, SendOutcome } from '../sending/transports/transport.ts';

/**
 * D17.9: what `/metrics` serves, in Prometheus text. Each app has a registry of its own (not
 * prom-client's global one), so several servers in one process (the tests) never collide.
 * Counters count what this process did since it started, as Prometheus expects; the backlog
 * gauges are read from the database at scrape time, so every process reports the same backlog.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'route' | 'method' | 'status'>;
  readonly messagesSent: Counter;
  readonly messagesBounced: Counter;
  readonly messagesFailed: Counter;
  /** D23: messages held back for their recipient domain's cap (SEND_DOMAIN_RATES) */
  readonly messagesPaced: Counter<'domain'>;
  /** D22, issue 28 H2: web view and archive messages rendered (a view served from the cache is not) */
  readonly viewRenders: Counter<'view'>;

  constructor(db: Db, logger: Logger) {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request durations; route is the matched pattern (unmatched for unknown paths), never the raw URL',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.messagesSent = new Counter({ name: 'sendwell_messages_sent_total', help: 'messages the mail server accepted (campaigns, automations, test sends and service mail)', registers: [this.registry] });
    this.messagesBounced = new Counter({ name: 'sendwell_messages_bounced_total', help: 'messages the mail server refused for good (5xx to RCPT or DATA)', registers: [this.registry] });
    this.messagesFailed = new Counter({
      name: 'sendwell_messages_failed_total',
      help: 'send attempts that failed without a bounce (a 4xx, no answer, or an address the client refused); most are retried',
      registers: [this.registry],
    });
    this.messagesPaced = new Counter({
      name: 'sendwell_messages_paced_total',
      help: "messages held back because their recipient domain's cap (SEND_DOMAIN_RATES) was used up; each is tried again within a second or so",
      labelNames: ['domain'],
      registers: [this.registry],
    });
    this.viewRenders = new Counter({
      name: 'sendwell_view_renders_total',
      help: 'web view (view="webview") and archive (view="archive") messages rendered; a view answered from the cache counts nothing',
      labelNames: ['view'],
      registers: [this.registry],
    });
    // A backlog gauge whose query fails keeps its last value: a scrape must not fail with the database.
    const backlog = (name: string, help: string, count: (db: Db) => Promise<number>) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          try {
            this.set(await count(db));
          } catch (err) {
            logger.warn({ err, metric: name }, 'metrics: could not read a backlog');
          }
        },
      });
    backlog('sendwell_recipients_pending', 'recipients of SENDING campaigns still to be sent', countPendingOfSendingCampaigns);
    backlog('sendwell_automation_runs_active', 'automation runs under way (waiting or due)', countActiveRuns);
    backlog('sendwell_webhook_deliveries_pending', 'outbound webhook deliveries waiting for an attempt', countPendingDeliveries);
  }
}

/** Counts every outcome of the transport it wraps: one place sees every message the process sends. */
export class CountingTransport implements MailTransport {
  constructor(
    private readonly inner: MailTransport,
    private readonly metrics: Metrics,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  async send(message: OutgoingMessage): Promise<SendOutcome> {
    const outcome = await this.inner.send(message);
    if (outcome.kind === 'sent') this.metrics.messagesSent.inc();
    else if (outcome.kind === 'bounced') this.metrics.messagesBounced.inc();
    else this.metrics.messagesFailed.inc();
    return outcome;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
