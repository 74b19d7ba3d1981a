import type { ActingContext } from '../shared/actor.ts';
import type { Db, DbHandle } from '../../db/connect.ts';
import type { Selectable } from 'kysely';
import type { AutomationRunStepsTable, AutomationsTable } from '../../db/schema.ts';
import { findList } from '../lists/lists.repo.ts';
import { listNotFound } from '../lists/lists.service.ts';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { ACTIVE_WORKFLOWS_MESSAGE, AUTOMATION_BUDGETS, AUTOMATION_LIMITS, needsCompiling, publicStep, triggerKey, validateSteps, validateTrigger, type Step, type Trigger } from './automation-definition.ts';
import type { CampaignContentCompiler } from '../campaigns/campaign-content.ts';
import * as repo from './automations.repo.ts';
import { mergeFieldWarnings } from '../content/merge-field-warnings.service.ts';
import { enqueueWebhookEvents } from '../outbound-webhooks/enqueue.ts';
import { yieldToEventLoop } from '../../polling-loop.ts';
import { recordAudit } from '../audit/audit.service.ts';

export interface Automation {
  id: number;
  name: string;
  trigger: Trigger;
  steps: Step[];
  allow_reentry: boolean;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export interface AutomationInput {
  name?: string;
  trigger?: unknown;
  steps?: unknown;
  allow_reentry?: boolean;
}

export const automationNotFound = () => new NotFoundError('AUTOMATION_NOT_FOUND', 'automation not found');

/**
 * Issue 14 L3: who may make a workflow mail people. A SEND_EMAIL step mails whoever the trigger
 * enrols, so a workflow that holds one may be created, changed or activated only by a caller who
 * may send campaigns too (`campaigns.send`); otherwise `automation.write` and `contacts.write`
 * would be a way round it.
 */
export interface Caller {
  maySendMail: boolean;
}

const mailingNeedsSend = () =>
  new ForbiddenError('PERMISSION_DENIED', 'this API key lacks the permission campaigns.send, which a workflow with a SEND_EMAIL step needs');

function requireMayMail(caller: Caller, steps: Step[]): void {
  if (!caller.maySendMail && steps.some((s) => s.type === 'SEND_EMAIL')) throw mailingNeedsSend();
}

/** Why runs end when their workflow is stopped: deactivated with its runs ended (issue 14 C1). */
export const ENDED_BY_DEACTIVATION = 'ended by deactivation';
/** Runs ended per statement when a workflow is deactivated with its runs: each its own short transaction. */
const END_RUNS_CHUNK = 1000;

type AutomationRow = Selectable<AutomationsTable>;

/** The trigger as the API shows it, rebuilt from the stored columns and the stored definition. */
export function toAutomation(row: AutomationRow): Automation {
  const stored = readJson<{ trigger: Trigger; steps: Step[] }>(row.steps, { trigger: { type: 'CONTACT_CREATED' }, steps: [] });
  return {
    id: row.id,
    name: row.name,
    trigger: stored.trigger,
    steps: stored.steps.map(publicStep),
    allow_reentry: row.allow_reentry === 1,
    is_active: row.is_active === 1,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** A stored workflow's steps, as the runner reads them. */
export function stepsOf(row: { steps: string }): Step[] {
  return readJson<{ steps: Step[] }>(row.steps, { steps: [] }).steps;
}

function cleanName(raw: string): string {
  const name = raw.trim();
  const length = [...name].length;
  if (length < 1 || length > AUTOMATION_LIMITS.nameMax) throw new ValidationError(`name must be 1-${AUTOMATION_LIMITS.nameMax} characters`);
  return name;
}

export interface RunStep {
  step_index: number;
  type: string;
  status: string;
  attempts: number;
  detail: string | null;
  started_at: string;
  finished_at: string | null;
}

export function toRunStep(row: Selectable<AutomationRunStepsTable>): RunStep {
  return {
    step_index: row.step_index,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    detail: row.detail,
    started_at: toApiTimestamp(row.started_at),
    finished_at: toApiTimestamp(row.finished_at),
  };
}

/** D15: workflows of an account. The rules about their shape are in automation-definition.ts. */
export class AutomationService {
  constructor(
    private readonly handle: DbHandle,
    /** D22 for SEND_EMAIL steps (issue 34 item 11): compiles a step's format and layout as a campaign's */
    private readonly content?: CampaignContentCompiler,
  ) {}

  /**
   * Issue 34 item 11: each SEND_EMAIL step with a format other than html or a layout, compiled as a
   * campaign's content is when saved (the layout read now: the account's own or a built-in one,
   * 404 TEMPLATE_NOT_FOUND otherwise, 400 for a starter; MJML errors 400 naming the step's field
   * and line). What is compiled is what the step sends until it is saved again.
   */
  private async compileSteps(accountId: number, steps: Step[]): Promise<Step[]> {
    const compiled: Step[] = [];
    for (const [i, step] of steps.entries()) {
      if (step.type !== 'SEND_EMAIL' || !needsCompiling(step) || !this.content) {
        compiled.push(step);
        continue;
      }
      const source = { format: step.format ?? 'html', html: step.html, template_id: step.template_id ?? null, variants: null };
      const { compiled_html } = await this.content.compile(this.handle.db, accountId, source, `steps[${i}].html`);
      compiled.push(compiled_html === null ? step : { ...step, compiled_html });
    }
    return compiled;
  }

  /** The workflow, and D26.7's warnings of merge fields nothing fills in its SEND_EMAIL steps. */
  async create(acting: ActingContext, accountId: number, input: AutomationInput & { name: string; trigger: unknown; steps: unknown }, caller: Caller): Promise<{ automation: Automation; warnings: string[] }> {
    const name = cleanName(input.name);
    const trigger = validateTrigger(input.trigger);
    const { steps: given, mergeFields } = validateSteps(input.steps);
    requireMayMail(caller, given);
    const steps = await this.compileSteps(accountId, given);
    const automation = await this.handle.db.transaction().execute(async (trx) => {
      await this.requireLists(trx, accountId, trigger, steps);
      const now = nowIso();
      const row = await repo.insertAutomation(trx, {
        account_id: accountId,
        name,
        trigger_type: trigger.type,
        trigger_key: triggerKey(trigger),
        steps: writeJson({ trigger, steps }),
        allow_reentry: input.allow_reentry ? 1 : 0,
        // D15: a new automation is inactive until activated.
        is_active: 0,
        created_at: now,
        updated_at: now,
      });
      await recordAudit(trx, acting, accountId, 'automation.created', { type: 'automation', id: row.id });
      return toAutomation(row);
    });
    return { automation, warnings: await mergeFieldWarnings(this.handle, accountId, mergeFields, 'workflow') };
  }

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageAutomations(this.handle.db, accountId, page);
    return toPage('automations', rows.map(toAutomation), total, page);
  }

  async get(accountId: number, id: number): Promise<Automation> {
    return toAutomation(await this.require(this.handle.db, accountId, id));
  }

  /**
   * Omitted fields keep their value. Runs in progress continue at their step index under the
   * new steps (a run whose index is past the end completes). A workflow that mails after the
   * update needs a caller who may send mail (issue 14 L3), whichever field changes: the trigger
   * and re-entry decide who is mailed as much as the steps do. D26.7's warnings come with it when
   * its steps are given.
   */
  async update(acting: ActingContext, accountId: number, id: number, input: AutomationInput, caller: Caller): Promise<{ automation: Automation; warnings: string[] }> {
    let mergeFields: string[] = [];
    await this.require(this.handle.db, accountId, id); // another account's id is 404 before its body is read
    const given = input.steps === undefined ? null : validateSteps(input.steps);
    // Compiled before the transaction: the compile thread is not held inside one.
    const compiled = given ? await this.compileSteps(accountId, given.steps) : null;
    const automation = await this.handle.db.transaction().execute(async (trx) => {
      const stored = await this.require(trx, accountId, id);
      const current = toAutomation(stored);
      const trigger = input.trigger === undefined ? current.trigger : validateTrigger(input.trigger);
      // Steps not given keep what is stored, their compiled content with them.
      const steps = compiled ?? stepsOf(stored);
      mergeFields = given?.mergeFields ?? [];
      requireMayMail(caller, steps);
      await this.requireLists(trx, accountId, trigger, steps);
      const row = await repo.updateAutomation(trx, accountId, id, {
        name: input.name === undefined ? current.name : cleanName(input.name),
        trigger_type: trigger.type,
        trigger_key: triggerKey(trigger),
        steps: writeJson({ trigger, steps }),
        allow_reentry: (input.allow_reentry ?? current.allow_reentry) ? 1 : 0,
        updated_at: nowIso(),
      });
      await recordAudit(trx, acting, accountId, 'automation.updated', { type: 'automation', id });
      return toAutomation(row);
    });
    return { automation, warnings: await mergeFieldWarnings(this.handle, accountId, mergeFields, 'workflow') };
  }

  /** Deletes the workflow and its runs (with their step logs). */
  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      await repo.deleteAutomation(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'automation.deleted', { type: 'automation', id });
    });
  }

  /** Idempotent. An active workflow starts runs from now on; one that mails needs a caller who may send mail (issue 14 L3). */
  async activate(acting: ActingContext, accountId: number, id: number, caller: Caller): Promise<Automation> {
    return this.handle.db.transaction().execute(async (trx) => {
      const row = await this.require(trx, accountId, id);
      requireMayMail(caller, stepsOf(row));
      // Issue 28 H3: active workflows per account are budgeted (every active one is read on every contact change).
      if (row.is_active !== 1 && (await repo.countActiveAutomations(trx, accountId)) >= AUTOMATION_BUDGETS.activeWorkflows) {
        throw new InvalidStateError(ACTIVE_WORKFLOWS_MESSAGE);
      }
      // D24.8: recorded when the workflow was inactive; activating an active one again changes nothing.
      if (row.is_active !== 1) await recordAudit(trx, acting, accountId, 'automation.activated', { type: 'automation', id });
      return toAutomation(await repo.updateAutomation(trx, accountId, id, { is_active: 1, updated_at: nowIso() }));
    });
  }

  /**
   * Idempotent. An inactive workflow starts no new runs. By default runs already under way go on to
   * their end (deactivating is "stop enrolling", not "abort"); with `endRuns` they end too, EXITED
   * "ended by deactivation" (issue 14 C1: a workflow can always be stopped, whatever it has
   * started). Enrolling stops first, in its own commit, so no run starts behind the ones being
   * ended; they are ended a chunk per short transaction, each giving the event loop its turn, so
   * ending a million runs never holds the database or the API for the whole of it. A runner in
   * the middle of one of them finds it ended at its next write and leaves it. Each ended run
   * emits `automation.completed`, as a run that ends by itself does.
   */
  async deactivate(acting: ActingContext, accountId: number, id: number, opts: { endRuns: boolean }): Promise<Automation> {
    const automation = await this.handle.db.transaction().execute(async (trx) => {
      const row = await this.require(trx, accountId, id);
      // D24.8: a stop (`endRuns`) is recorded even on an inactive workflow: it ends the runs under way.
      if (opts.endRuns) await recordAudit(trx, acting, accountId, 'automation.stopped', { type: 'automation', id });
      else if (row.is_active === 1) await recordAudit(trx, acting, accountId, 'automation.deactivated', { type: 'automation', id });
      return toAutomation(await repo.updateAutomation(trx, accountId, id, { is_active: 0, updated_at: nowIso() }));
    });
    if (!opts.endRuns) return automation;
    for (let after = 0; ; ) {
      const ended = await this.handle.db.transaction().execute(async (trx) => {
        const now = nowIso();
        const runs = await repo.endActiveRuns(trx, id, ENDED_BY_DEACTIVATION, now, after, END_RUNS_CHUNK);
        await enqueueWebhookEvents(
          trx,
          runs.map((r) => ({
            accountId,
            type: 'automation.completed' as const,
            data: { automation_id: id, run_id: r.id, status: 'EXITED', reason: ENDED_BY_DEACTIVATION, contact: r.contact },
          })),
        );
        return runs;
      });
      if (ended.length < END_RUNS_CHUNK) return automation;
      after = ended[ended.length - 1].id;
      await yieldToEventLoop();
    }
  }

  /** D15 runs list: newest first, each with its current step and its step history. */
  async runs(accountId: number, id: number, page: PageRequest) {
    const automation = await this.require(this.handle.db, accountId, id);
    const steps = stepsOf(automation);
    const { rows, total } = await repo.pageRuns(this.handle.db, id, page);
    const history = new Map<number, RunStep[]>();
    for (const s of await repo.stepsOfRuns(this.handle.db, rows.map((r) => r.id))) {
      history.set(s.run_id, [...(history.get(s.run_id) ?? []), toRunStep(s)]);
    }
    const runs = rows.map((r) => ({
      id: r.id,
      automation_id: r.automation_id,
      contact_id: r.contact_id,
      email: r.email,
      status: r.status,
      trigger_type: r.trigger_type,
      current_step: r.status === 'ACTIVE' ? r.step_index : null,
      current_step_type: r.status === 'ACTIVE' ? (steps[r.step_index]?.type ?? null) : null,
      due_at: r.status === 'ACTIVE' ? toApiTimestamp(r.due_at) : null,
      ended_reason: r.ended_reason,
      history: history.get(r.id) ?? [],
      created_at: toApiTimestamp(r.created_at),
      updated_at: toApiTimestamp(r.updated_at),
      finished_at: toApiTimestamp(r.finished_at),
    }));
    return toPage('runs', runs, total, page);
  }

  /** Lists a workflow names must exist in the account (404 LIST_NOT_FOUND otherwise, as for contacts, D11). */
  private async requireLists(db: Db, accountId: number, trigger: Trigger, steps: Step[]): Promise<void> {
    const ids = new Set<number>();
    if (trigger.type === 'LIST_JOINED') ids.add(trigger.list_id!);
    for (const s of steps) if (s.type === 'ADD_TO_LIST' || s.type === 'REMOVE_FROM_LIST') ids.add(s.list_id);
    for (const listId of ids) if (!(await findList(db, accountId, listId))) throw listNotFound();
  }

  private async require(db: Db, accountId: number, id: number): Promise<AutomationRow> {
    const row = await repo.findAutomation(db, accountId, id);
    if (!row) throw automationNotFound();
    return row;
  }
}
