import { suppressedAmong } from '../domain/suppressions/suppressions.repo.ts';
import { SUPPRESSED_REASON } from '../domain/suppressions/suppression.ts';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db, DbHandle } from '../db/connect.ts';
import { AUTOMATION_BUDGETS, FANOUT_REASON, hourOf, STEPS_PER_HOUR_REASON, type Step } from '../domain/automations/automation-definition.ts';
import { stepsOf } from '../domain/automations/automations.service.ts';
import { announceContactActivity } from '../domain/automations/contact-activity.ts';
import * as runRepo from '../domain/automations/automation-runs.repo.ts';
import { findCampaignById } from '../domain/campaigns/campaigns.repo.ts';
import { findRecipientRef } from '../domain/campaigns/recipient-reads.repo.ts';
import { markBounced, markRecipientFailed, markSent } from '../domain/campaigns/recipients.repo.ts';
import { findContactForStep } from '../domain/contacts/contacts.repo.ts';
import { mailable } from '../domain/contacts/contact-status.ts';
import { enqueueWebhookEvent } from '../domain/outbound-webhooks/enqueue.ts';
import { emailEvent } from '../domain/outbound-webhooks/event-data.ts';
import { readJson } from '../domain/shared/json.ts';
import { toApiTimestamp } from '../domain/shared/time.ts';
import { inBackgroundTurn, PollingLoop, yieldToEventLoop } from '../polling-loop.ts';
import { transaction, type Tx } from '../db/transaction.ts';
import type { CampaignRow } from '../db/schema.ts';
import { ContentError, type MessageRenderer, type RenderResult } from '../sending/message-renderer.ts';
import type { MergeContact } from '../sending/render.ts';
import type { MailTransport } from '../sending/transports/transport.ts';
import { createAutomationMessage } from './automation-mail.ts';
import { requireContact, stepEffect, type StepOutcome } from './step-effects.ts';
import type { SubscriptionService } from '../domain/consent/subscriptions.service.ts';
import { backoffDelay } from '../domain/shared/backoff.ts';
import { interleaveByAccount } from '../domain/shared/fair-queue.ts';

export type RunnerOptions = Pick<Config['sending'], 'concurrency' | 'batchSize' | 'leaseMs' | 'retryBaseMs' | 'maxAttempts' | 'pollMs'>;

interface ClaimedRun {
  id: number;
  account_id: number;
  automation_id: number;
  contact_id: number;
  step_index: number;
  event_data: string | null;
  /** the workflows whose steps led to this run (issue 14 C1) */
  chain: number[];
  /** the root run this one descends from, null on a root (issue 28 H3) */
  origin_id: number | null;
  lease_until: string;
}

/** Issue 28 M3: why a SEND_EMAIL step skips a contact whose double opt-in is not confirmed. */
export const AWAITING_CONFIRMATION_REASON = 'not sent: the contact has not confirmed its double opt-in subscription yet';

/** The run lost its lease (another runner took it after the lease ran out, or its workflow was deactivated with its runs ended): nothing was written. */
class LeaseLost extends Error {}

/** What handing a SEND_EMAIL step's message over came to: the transport's outcome, or why there was no message to hand over. */
type SendOutcome = Awaited<ReturnType<MailTransport['send']>> | { kind: 'unrendered'; error: string };

/**
 * The automation runner (sender role): claims due runs with a lease (FOR UPDATE SKIP LOCKED on
 * PostgreSQL), runs their current step and records it.
 *
 * Durability: every step except SEND_EMAIL applies its effect, writes its step-log row and moves
 * the run on in ONE transaction, guarded by the lease and the step index, so a crash at any
 * instant leaves the step either wholly done or not done (then it runs again when the lease ends);
 * the step log's unique (run, step) makes a second record impossible. WAIT is a due time stored
 * on the run, so it survives restarts.
 *
 * SEND_EMAIL has an outside effect, so it is at most once IN FLIGHT, as in the sending issue: the
 * step is recorded SENDING (committed) before the message is handed to the transport, and SENT
 * after. A step found SENDING after a crash was in flight at the crash: it is sent again with the
 * same Message-ID (its `attempts` counts hand-overs), so a contact gets it twice only if the
 * crash fell between the mail server's acceptance and the SENT record; it is never lost. Its
 * message is rendered on a render thread (issue 14 H3), never on this one; a message that cannot
 * be rendered ends the step FAILED with the reason at once, and a hand-over that keeps ending
 * without an outcome (the process or the render thread dying on it) is given up FAILED after
 * SEND_MAX_ATTEMPTS: neither is tried again every lease.
 *
 * Issue 14 H1: on SQLite every await here resolves without leaving the microtask queue, so the
 * runner gives the event loop its turn between steps (yieldToEventLoop), and HTTP and signals are
 * served while it works through a backlog.
 */
export class AutomationRunner {
  private readonly loop: PollingLoop;
  /** Issue 28 H3: steps each account may still run this hour, as this batch found them and spends them */
  private stepsLeft = new Map<number, number>();
  private prunedHour = 0;

  constructor(
    private readonly handle: DbHandle,
    private readonly transport: MailTransport,
    private readonly renderer: MessageRenderer,
    private readonly opts: RunnerOptions,
    private readonly logger: Logger,
    /** D20's confirmation mail, for ADD_TO_LIST on a double opt-in list (issue 28): the path a form's sign-up takes */
    private readonly confirmations: Pick<SubscriptionService, 'sendConfirmation'>,
  ) {
    this.loop = new PollingLoop(() => this.runOnce(), opts.pollMs, (err) => this.logger.error({ err }, 'automation round failed; retrying'));
  }

  start(): void {
    this.loop.start();
  }

  /** Lets the steps in progress finish and record, gives back the rest of the claim, then returns. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.renderer.close();
  }

  /** Claims one batch of due runs and takes each as far as it can go now; returns how many it claimed. */
  async runOnce(): Promise<number> {
    const claimedAt = Date.now();
    const runs = await this.claim(new Date(claimedAt).toISOString(), new Date(claimedAt + this.opts.leaseMs).toISOString());
    const mustStopBy = claimedAt + this.opts.leaseMs * 0.8;
    const hour = hourOf(new Date(claimedAt).toISOString());
    if (hour !== this.prunedHour) {
      await runRepo.pruneUsage(this.handle.db, hour);
      this.prunedHour = hour;
    }
    const accounts = [...new Set(runs.map((r) => r.account_id))];
    const usage = await runRepo.usageOf(this.handle.db, accounts, hour);
    this.stepsLeft = new Map(accounts.map((a) => [a, AUTOMATION_BUDGETS.stepsPerHour - (usage.get(a)?.steps ?? 0)]));
    const stepsBefore = new Map(this.stepsLeft);
    // The workflows of the batch, read once: a change to one applies from the next batch.
    const workflows = new Map<number, Step[]>();
    const ids = [...new Set(runs.map((r) => r.automation_id))];
    if (ids.length > 0) {
      for (const a of await runRepo.findWorkflowSteps(this.handle.db, ids)) workflows.set(a.id, stepsOf(a));
    }
    let next = 0;
    const worker = async () => {
      while (next < runs.length) {
        const run = runs[next++];
        try {
          await this.advance(run, workflows.get(run.automation_id), mustStopBy);
        } catch (err) {
          if (!(err instanceof LeaseLost)) this.logger.error({ err, run: run.id }, 'automation step failed; retried when its lease ends');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency, runs.length) }, worker));
    // The steps this batch ran count against each account's hour (per claim: a crash loses at most one batch's count).
    for (const [account, before] of stepsBefore) await runRepo.addUsage(this.handle.db, account, hour, { steps: before - this.stepsLeft.get(account)! });
    return runs.length;
  }

  /**
   * Issue 28 H3: at most AUTOMATION_BUDGETS.claimPerAccount due runs of each account per claim,
   * taken round robin (interleaveByAccount, the one fairness policy), each account's oldest
   * first: one account's backlog of a thousand runs holds another's one run back by one turn.
   */
  private async claim(now: string, leaseUntil: string): Promise<ClaimedRun[]> {
    const perAccount = Math.min(AUTOMATION_BUDGETS.claimPerAccount, this.opts.batchSize);
    const rows = await runRepo.claimDueRuns(this.handle.db, this.handle.dialect, now, leaseUntil, this.opts.batchSize, perAccount);
    const due = (r: (typeof rows)[number]) => new Date(r.due_at).getTime();
    rows.sort((a, b) => due(a) - due(b) || a.id - b.id);
    return interleaveByAccount(rows, (r) => r.account_id).map(({ due_at: _due, ...r }) => ({
      ...r,
      origin_id: r.origin_id === null ? null : Number(r.origin_id),
      chain: readJson<number[]>(r.chain, []),
      lease_until: leaseUntil,
    }));
  }

  /** Runs steps of one run while they are due now and the lease allows; leaves it for later otherwise. */
  private async advance(run: ClaimedRun, steps: Step[] | undefined, mustStopBy: number): Promise<void> {
    if (!steps) return; // the workflow was deleted: its runs went with it
    for (;;) {
      await yieldToEventLoop();
      if (this.loop.stopping || Date.now() >= mustStopBy) break;
      const step = steps[run.step_index];
      if (step !== undefined && !this.spendStep(run.account_id)) {
        await this.endForBudget(run, STEPS_PER_HOUR_REASON, { budget: 'stepsPerHour' });
        return;
      }
      const more = step === undefined ? await this.finish(run) : step.type === 'SEND_EMAIL' ? await this.sendEmail(run, step, steps.length) : await this.applyStep(run, step, steps.length);
      if (!more) return;
    }
    await this.release(run);
  }

  /**
   * The guard every write of a step starts with: this runner still holds the run at this step.
   * It also renews the lease, so each step (a SEND_EMAIL's hand-over included) starts with a full
   * lease; only a single hand-over slower than SEND_LEASE_MS could let another runner take the run
   * while its message is in flight.
   */
  private async hold(trx: Db, run: ClaimedRun): Promise<void> {
    // Contact first, then run: the order every other writer takes (a contact update or bulk
    // import locks contacts, then starts runs), so PostgreSQL never sees the two wait on each other.
    await runRepo.lockContactRow(trx, this.handle.dialect, run.contact_id);
    const now = Date.now();
    const renewed = new Date(Math.max(now + this.opts.leaseMs, Date.parse(run.lease_until) + 1)).toISOString();
    if (!(await runRepo.renewRunLease(trx, run, renewed, new Date(now).toISOString()))) throw new LeaseLost();
    run.lease_until = renewed;
  }

  /** Moves the run past its current step (or ends it), in the step's transaction. Returns whether it may go on now. */
  private async moveOn(trx: Db, run: ClaimedRun, stepCount: number, outcome: StepOutcome, now: string): Promise<boolean> {
    if (outcome.status === 'FALSE') return this.end(trx, run, 'EXITED', 'a CONDITION was false', now);
    const nextIndex = run.step_index + 1;
    // A WAIT at the end still holds the run (a cool-down before a workflow without re-entry can start again).
    if (nextIndex >= stepCount && !outcome.waitSeconds) return this.end(trx, run, 'COMPLETED', null, now);
    const dueAt = outcome.waitSeconds ? new Date(Date.parse(now) + outcome.waitSeconds * 1000).toISOString() : now;
    // A WAIT gives the lease back: whichever runner is up when it is due takes the run.
    await runRepo.moveRun(trx, run.id, nextIndex, dueAt, now, Boolean(outcome.waitSeconds));
    run.step_index = nextIndex;
    return !outcome.waitSeconds;
  }

  private async end(trx: Db, run: ClaimedRun, status: 'COMPLETED' | 'EXITED', reason: string | null, now: string): Promise<false> {
    await runRepo.endRun(trx, run.id, status, reason, now);
    const found = await findContactForStep(trx, run.contact_id);
    const contact = found ? { id: found.id, email: found.email } : undefined;
    await enqueueWebhookEvent(trx, {
      accountId: run.account_id,
      type: 'automation.completed',
      data: { automation_id: run.automation_id, run_id: run.id, status, reason, contact: contact ?? null },
    });
    return false;
  }

  /** A run whose step index is past the last step (its workflow was shortened): it is complete. */
  private async finish(run: ClaimedRun): Promise<boolean> {
    await this.transaction(async (trx) => {
      await this.hold(trx, run);
      await this.end(trx, run, 'COMPLETED', null, new Date().toISOString());
    });
    return false;
  }

  /** Takes one step from the account's hourly budget; false when it is spent. */
  private spendStep(accountId: number): boolean {
    const left = this.stepsLeft.get(accountId) ?? AUTOMATION_BUDGETS.stepsPerHour;
    if (left <= 0) return false;
    this.stepsLeft.set(accountId, left - 1);
    return true;
  }

  /** Issue 28 H3: a budget is spent, so the run ends here, EXITED with the reason, and a warn line says so (ids only, no personal data). */
  private async endForBudget(run: ClaimedRun, reason: string, detail: Record<string, unknown>): Promise<void> {
    await this.transaction(async (trx) => {
      await this.hold(trx, run);
      await this.end(trx, run, 'EXITED', reason, new Date().toISOString());
    });
    this.warnBudget(run, detail);
  }

  private warnBudget(run: ClaimedRun, detail: Record<string, unknown>): void {
    this.logger.warn({ account: run.account_id, automation: run.automation_id, run: run.id, ...detail }, 'automation budget spent: what it would have started or run is refused, with the reason on record');
  }

  /**
   * A step's transaction. On SQLite it goes through inBackgroundTurn: one step at a time, each in
   * a slice of the event loop, so the workers' steps never run back to back past a slice while
   * HTTP waits (issue 28). On PostgreSQL the workers' transactions overlap their round trips.
   */
  private transaction<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    // The gate holds the transaction only: its after-commit work (a confirmation mail) waits on no other step.
    return transaction(this.handle.db, this.logger, work, this.handle.dialect === 'sqlite' ? inBackgroundTurn : undefined);
  }

  private async release(run: ClaimedRun): Promise<void> {
    await runRepo.releaseRun(this.handle.db, run.id, run.lease_until);
  }

  /** Every step but SEND_EMAIL: effect, step log and progress in one transaction. */
  private async applyStep(run: ClaimedRun, step: Exclude<Step, { type: 'SEND_EMAIL' }>, stepCount: number): Promise<boolean> {
    // Issue 28 H3: budgets this step met, logged once its transaction has committed.
    const spent: Record<string, unknown>[] = [];
    const more = await this.transaction(async (trx) => {
      await this.hold(trx, run);
      const now = new Date().toISOString();
      const outcome = await stepEffect(trx, run, step, now);
      // After the commit, as for a form's sign-up: no mail asks to confirm what a rollback undid.
      const { confirmation } = outcome;
      if (confirmation) trx.onCommit(() => this.confirmations.sendConfirmation({ confirmation }));
      await runRepo.insertRunStep(trx, { run_id: run.id, step_index: run.step_index, type: step.type, status: outcome.status, detail: outcome.detail, started_at: now, finished_at: now });
      if (outcome.activities?.length || outcome.notices?.length) {
        // Issue 14 C1: what this step changed starts no run of this workflow, nor of any workflow that led to this run.
        // Issue 28 H3: the runs it starts descend from this run's root, whose descendants are budgeted.
        const lineage = { chain: [...run.chain, run.automation_id], originId: run.origin_id ?? run.id };
        const refused = await announceContactActivity(trx, run.account_id, outcome.activities ?? [], outcome.notices ?? [], lineage);
        if (refused.perHour > 0) spent.push({ budget: 'runsPerHour', refused: refused.perHour });
        if (refused.fanout > 0) {
          // The step's own change stays made; what it would have started does not start, and this run ends with the reason.
          spent.push({ budget: 'descendantsPerOrigin', origin: lineage.originId, refused: refused.fanout });
          return this.end(trx, run, 'EXITED', FANOUT_REASON, now);
        }
      }
      return this.moveOn(trx, run, stepCount, outcome, now);
    });
    for (const detail of spent) this.warnBudget(run, detail);
    return more;
  }

  /** SEND_EMAIL, at most once in flight: SENDING committed, then the transport, then SENT with the run moved on. */
  private async sendEmail(run: ClaimedRun, step: Extract<Step, { type: 'SEND_EMAIL' }>, stepCount: number): Promise<boolean> {
    const prepared = await this.transaction(async (trx) => {
      await this.hold(trx, run);
      const now = new Date().toISOString();
      const contact = await requireContact(trx, run.contact_id);
      const logged = await runRepo.findRunStep(trx, run.id, run.step_index);
      const suppressed = (await suppressedAmong(trx, run.account_id, [contact.email])).size > 0;
      if (!mailable(contact) || suppressed) {
        // Never to a contact who is not SUBSCRIBED, nor to a suppressed address (D19): checked each time the message would be handed over.
        // Issue 28 M3: nor to one whose double opt-in is not confirmed yet.
        const detail = suppressed ? SUPPRESSED_REASON : contact.status === 'SUBSCRIBED' ? AWAITING_CONFIRMATION_REASON : `not sent: the contact is ${contact.status}`;
        if (logged) {
          await runRepo.updateRunStep(trx, logged.id, { status: 'SKIPPED', detail, finished_at: now });
          await markRecipientFailed(trx, Number(logged.recipient_id), detail);
        } else {
          await runRepo.insertRunStep(trx, { run_id: run.id, step_index: run.step_index, type: step.type, status: 'SKIPPED', detail, started_at: now, finished_at: now });
        }
        return { settled: await this.moveOn(trx, run, stepCount, { status: 'SKIPPED', detail }, now) };
      }
      if (logged && logged.attempts >= this.opts.maxAttempts) {
        // Every hand-over so far ended without an outcome being recorded (the process, or the
        // render thread, died on it): a message that kills what sends it is not tried every lease.
        const detail = `gave up: handed over ${logged.attempts} times without an outcome`;
        await runRepo.updateRunStep(trx, logged.id, { status: 'FAILED', detail, finished_at: now });
        await markRecipientFailed(trx, Number(logged.recipient_id), detail);
        return { settled: await this.moveOn(trx, run, stepCount, { status: 'DONE', detail }, now) };
      }
      let recipientId: number;
      if (logged) {
        // In flight at a crash (SENDING) or deferred earlier (RETRY): handed over once more.
        recipientId = Number(logged.recipient_id);
        await runRepo.updateRunStep(trx, logged.id, { status: 'SENDING', attempts: logged.attempts + 1 });
      } else {
        recipientId = await createAutomationMessage(trx, run, run.step_index, step, contact.email, now);
        await runRepo.insertRunStep(trx, { run_id: run.id, step_index: run.step_index, type: step.type, status: 'SENDING', attempts: 1, recipient_id: recipientId, started_at: now });
      }
      const recipient = await findRecipientRef(trx, recipientId);
      const campaign = await findCampaignById(trx, recipient.campaign_id);
      return { contact, recipient, campaign, attempts: (logged?.attempts ?? 0) + 1 };
    });
    if ('settled' in prepared) return prepared.settled === true;

    const { contact, recipient, campaign, attempts } = prepared;
    const message = await this.render(campaign, recipient.id, {
      email: contact.email,
      first_name: contact.first_name,
      last_name: contact.last_name,
      phone: contact.phone,
      custom_fields: readJson<Record<string, unknown>>(contact.custom_fields, {}),
      event: readJson<Record<string, unknown> | null>(run.event_data, null) ?? {}, // D26.7: the event's data, as a CONDITION reads it
    });
    const outcome: SendOutcome = 'renderError' in message ? { kind: 'unrendered', error: message.renderError } : await this.transport.send(message);

    return this.transaction(async (trx) => {
      await this.hold(trx, run);
      const now = new Date().toISOString();
      const record = (status: string, detail: string | null, finished: boolean) => runRepo.recordRunStep(trx, run.id, run.step_index, { status, detail, finished_at: finished ? now : null });
      const fail = async (detail: string) => {
        await markRecipientFailed(trx, recipient.id, detail);
        await record('FAILED', detail, true);
        return this.moveOn(trx, run, stepCount, { status: 'DONE', detail: null }, now);
      };
      // Issue 14 H3: rendering it again would fail again. The step is FAILED with the reason and the
      // run goes on, as after a message the mail server kept refusing (below).
      if (outcome.kind === 'unrendered') return fail(`could not render the message: ${outcome.error}`);
      if ('renderError' in message) throw new Error('unreachable: an unrendered message has no transport outcome');
      // The email.* webhook events of a campaign message, for this one too (its campaign_id is the step's hidden campaign).
      const ref = { accountId: run.account_id, campaignId: recipient.campaign_id, contactId: recipient.contact_id, email: contact.email, messageId: message.messageId };
      if (outcome.kind === 'sent') {
        if (await markSent(trx, recipient, message.messageId, now)) await enqueueWebhookEvent(trx, emailEvent('email.sent', ref, { sent_at: toApiTimestamp(now), automation_id: run.automation_id }));
        await record('SENT', null, true);
        return this.moveOn(trx, run, stepCount, { status: 'DONE', detail: null }, now);
      }
      if (outcome.kind === 'bounced') {
        if (await markBounced(trx, recipient, message.messageId, outcome.error, now)) {
          await enqueueWebhookEvent(trx, emailEvent('email.bounced', ref, { hard: true, reason: outcome.error, automation_id: run.automation_id }));
        }
        await record('BOUNCED', outcome.error, true);
        return this.moveOn(trx, run, stepCount, { status: 'DONE', detail: null }, now);
      }
      // An address the transport refused outright (issue 14 M1) is refused again on every try.
      if (outcome.permanent || attempts >= this.opts.maxAttempts) return fail(outcome.error);
      // A 4xx or no answer: tried again later with backoff (the run waits on this step).
      await record('RETRY', outcome.error, false);
      const delay = backoffDelay(this.opts.retryBaseMs, attempts);
      await runRepo.deferRun(trx, run.id, new Date(Date.now() + delay).toISOString(), now);
      return false;
    });
  }

  /**
   * The step's message, rendered on the render thread (issue 14 H3: a template's render budget is
   * spent there, not on the thread that serves HTTP), or why it cannot be: content that does not
   * compile (ContentError) is a reason like any other here, since this message is the only one.
   */
  private async render(campaign: CampaignRow, recipientId: number, contact: MergeContact): Promise<RenderResult> {
    try {
      const [result] = await this.renderer.render(campaign, [{ recipientId, contact }]);
      return result;
    } catch (err) {
      if (err instanceof ContentError) return { renderError: `the content cannot be rendered: ${err.message}` };
      throw err;
    }
  }
}
