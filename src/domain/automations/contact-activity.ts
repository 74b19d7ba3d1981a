import type { Insertable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { AutomationRunsTable } from '../../db/schema.ts';
import { enqueueWebhookEvents, type WebhookEvent } from '../outbound-webhooks/enqueue.ts';
import type { Activity, ContactNotice } from '../contacts/activity.ts';
import { writeJson } from '../shared/json.ts';
import { AUTOMATION_BUDGETS, hourOf, RUNS_PER_HOUR_REASON, withinBudget, type TriggerType } from './automation-definition.ts';
import { addUsage, countDescendants, usageOf } from './automation-runs.repo.ts';
import { countRunsSince, findListeningAutomations, insertRuns, runKey } from './automations.repo.ts';
import { findList } from '../lists/lists.repo.ts';

function keyOf(a: Activity): string {
  switch (a.type) {
    case 'EVENT':
      return a.event;
    case 'TAG_ADDED':
    case 'TAG_REMOVED':
      return a.tag.toLowerCase();
    case 'LIST_JOINED':
      return String(a.listId);
    case 'CONTACT_CREATED':
      return '';
  }
}

/**
 * Issue 34 item 11: what `{{ event.<key> }}` (and a CONDITION's `event.<path>`) reads in a run. An
 * EVENT's data as it was sent (D26.7); for the other triggers, what happened: the list joined
 * (`event.list_id`, `event.list_name`) or the tag (`event.tag`). A new contact has none.
 */
export type TriggerData = (activity: Activity) => string | null;

async function triggerDataOf(db: Db, accountId: number, activities: readonly Activity[]): Promise<TriggerData> {
  const names = new Map<number, string>();
  for (const a of activities) {
    if (a.type !== 'LIST_JOINED' || names.has(a.listId)) continue;
    names.set(a.listId, (await findList(db, accountId, a.listId))?.name ?? '');
  }
  return (a) => {
    switch (a.type) {
      case 'EVENT':
        return writeJson(a.data);
      case 'LIST_JOINED':
        return writeJson({ list_id: a.listId, list_name: names.get(a.listId) ?? '' });
      case 'TAG_ADDED':
      case 'TAG_REMOVED':
        return writeJson({ tag: a.tag });
      case 'CONTACT_CREATED':
        return null;
    }
  };
}

// Rows per INSERT: 12 parameters each stays well under SQLite's bound-parameter limit.
const RUN_INSERT_CHUNK = 1000;

/**
 * Issue 14 C1's backstop: at most this many runs of one workflow for one contact within
 * RUN_CAP_WINDOW_MS. The chain rule below already stops a workflow from re-firing itself through
 * its own steps; the cap bounds what no chain can see: a loop through the outside (an outbound
 * webhook whose receiver posts an event back), and the fan-out of many workflows triggering one
 * another. 100 a day is far above what one person plausibly does to re-enter a workflow (an
 * order, a page view), and far below the 611,000 runs in 5 minutes of the report.
 */
export const RUN_CAP = 100;
export const RUN_CAP_WINDOW_MS = 24 * 3600_000;
export const RUN_CAP_REASON = `run limit reached: ${RUN_CAP} runs of this workflow for this contact within 24 hours; no further run starts until the oldest of them is 24 hours old`;

/** Issue 28 H3: what a change made by a run's step carries to the runs it starts. */
export interface Lineage {
  /** the workflows whose steps led here, the step's own workflow last (issue 14 C1) */
  chain: readonly number[];
  /** the root run (started by the change from outside) the new runs descend from */
  originId: number;
}

/** Runs a change did not start because a budget was spent (issue 28 H3); the reasons are on record. */
export interface Refusals {
  /** runs the fan-out budget of the step's outside event kept from starting: the step's run ends EXITED with FANOUT_REASON */
  fanout: number;
  /** runs the account's hourly budget kept from starting: one EXITED run per workflow says so */
  perHour: number;
}

/**
 * Starts a run of every matching active automation for each activity, in one INSERT per chunk.
 *
 * `lineage.chain` is what issue 14 C1 adds: the workflows whose steps made these changes, the
 * run's own workflow last (no lineage for a change from outside: the API, an import, an event).
 * Those workflows are not started again, so no step can re-fire its own workflow, directly (A -> A)
 * or round a ring (A -> B -> A); the new runs carry the chain on, so it reaches as far as the
 * changes do.
 *
 * Issue 28 H3's budgets: a run a step starts descends from its lineage's root (`origin_id`), and
 * a root has at most AUTOMATION_BUDGETS.descendantsPerOrigin descendants; the runs past it are not
 * started and counted in `fanout` (the runner ends the step's run EXITED with FANOUT_REASON, as
 * one step of a 25-workflow chain is where it stops). The account starts at most
 * AUTOMATION_BUDGETS.runsPerHour runs per clock hour; past it, each workflow that would have
 * started gets one run, EXITED with RUNS_PER_HOUR_REASON, and the rest are not written. Both
 * counts are read before the insert: concurrent transactions on PostgreSQL may each pass the last
 * few places (one contact's runs are serialised by its row lock, so a fan-out is exact).
 *
 * A (workflow, contact) pair that already has RUN_CAP runs in the window gets one more run,
 * ended EXITED at once with RUN_CAP_REASON, so the runs list says why; beyond that, nothing is
 * written, so even a loop the chain cannot see grows the table by a bounded amount. The count is
 * one grouped query per chunk (automation_runs_cap_idx); concurrent transactions on PostgreSQL
 * may each pass the last few places, so the cap can be overrun by the writers in flight, never
 * without bound.
 *
 * A workflow without re-entry that already has an ACTIVE run for the contact is left alone by the
 * unique partial index (ON CONFLICT DO NOTHING), so concurrent triggers cannot start it twice.
 * When the account has no active automation for these trigger types, this costs one indexed read.
 */
export async function startMatchingRuns(db: Db, accountId: number, activities: readonly Activity[], now: string, lineage?: Lineage): Promise<Refusals> {
  const refusals: Refusals = { fanout: 0, perHour: 0 };
  if (activities.length === 0) return refusals;
  const chain = lineage?.chain ?? [];
  const types = [...new Set(activities.map((a) => a.type))] as TriggerType[];
  const automations = (await findListeningAutomations(db, accountId, types)).filter((a) => !chain.includes(a.id));
  if (automations.length === 0) return refusals;
  const byTrigger = new Map<string, typeof automations>();
  for (const a of automations) {
    const k = `${a.trigger_type} ${a.trigger_key}`;
    byTrigger.set(k, [...(byTrigger.get(k) ?? []), a]);
  }
  const matches: { activity: Activity; automation: (typeof automations)[number] }[] = [];
  for (const activity of activities) {
    for (const automation of byTrigger.get(`${activity.type} ${keyOf(activity)}`) ?? []) matches.push({ activity, automation });
  }
  if (matches.length === 0) return refusals;
  const dataOf = await triggerDataOf(db, accountId, matches.map((m) => m.activity));

  const hour = hourOf(now);
  const usedThisHour = (await usageOf(db, [accountId], hour)).get(accountId)?.runs ?? 0;
  let hourLeft = withinBudget(AUTOMATION_BUDGETS.runsPerHour, usedThisHour, matches.length);
  let fanoutLeft = lineage ? withinBudget(AUTOMATION_BUDGETS.descendantsPerOrigin, await countDescendants(db, lineage.originId), matches.length) : Infinity;
  const hourRefused = new Map<number, Activity>();

  const since = new Date(Date.parse(now) - RUN_CAP_WINDOW_MS).toISOString();
  const chainJson = writeJson(chain);
  let started = 0;
  for (let i = 0; i < matches.length; i += RUN_INSERT_CHUNK) {
    const chunk = matches.slice(i, i + RUN_INSERT_CHUNK);
    const counts = await countRunsSince(
      db,
      [...new Set(chunk.map((m) => m.automation.id))],
      [...new Set(chunk.map((m) => m.activity.contactId))],
      since,
    );
    const rows: Insertable<AutomationRunsTable>[] = [];
    const row = (activity: Activity, automation: (typeof automations)[number], endedReason: string | null) => runRow(accountId, automation, activity, dataOf(activity), now, chainJson, lineage, endedReason);
    let ended = 0;
    for (const { activity, automation } of chunk) {
      const key = runKey(automation.id, activity.contactId);
      const count = counts.get(key) ?? 0;
      counts.set(key, count + 1);
      if (count > RUN_CAP) continue; // its refusal is on record already
      if (count === RUN_CAP) {
        rows.push(row(activity, automation, RUN_CAP_REASON));
        ended++;
        continue;
      }
      if (fanoutLeft === 0) {
        refusals.fanout++;
        continue;
      }
      if (hourLeft === 0) {
        refusals.perHour++;
        if (!hourRefused.has(automation.id)) hourRefused.set(automation.id, activity);
        continue;
      }
      fanoutLeft--;
      hourLeft--;
      rows.push(row(activity, automation, null));
    }
    started += (await insertRuns(db, rows)) - ended;
  }
  // One run per workflow says why the hour's budget left it out; the rest are not written.
  const noted = [...hourRefused].map(([automationId, activity]) => runRow(accountId, automations.find((x) => x.id === automationId)!, activity, dataOf(activity), now, chainJson, lineage, RUNS_PER_HOUR_REASON));
  if (noted.length > 0) await insertRuns(db, noted);
  await addUsage(db, accountId, hour, { runs: started });
  return refusals;
}

/** A run row as startMatchingRuns writes it: ACTIVE and due now, or EXITED at once with `endedReason`. */
function runRow(
  accountId: number,
  automation: { id: number; allow_reentry: number },
  activity: Activity,
  eventData: string | null,
  now: string,
  chainJson: string,
  lineage: Lineage | undefined,
  endedReason: string | null,
): Insertable<AutomationRunsTable> {
  return {
    account_id: accountId,
    automation_id: automation.id,
    contact_id: activity.contactId,
    status: endedReason ? 'EXITED' : 'ACTIVE',
    step_index: 0,
    single: automation.allow_reentry === 1 ? 0 : 1,
    trigger_type: activity.type,
    event_data: eventData,
    due_at: now,
    chain: chainJson,
    origin_id: lineage?.originId ?? null,
    created_at: now,
    updated_at: now,
    ...(endedReason ? { ended_reason: endedReason, finished_at: now } : {}),
  };
}

/**
 * Starts matching runs and enqueues the contact.* webhook events, in the caller's transaction
 * (contacts/activity.ts says when it is called; contacts/ and consent/ receive it as their
 * AnnounceActivity port, the wiring passes it in).
 * `lineage`: the run whose step made the changes, when a step is the caller (see startMatchingRuns).
 * Returns what budgets refused.
 */
export async function announceContactActivity(db: Db, accountId: number, activities: readonly Activity[], notices: readonly ContactNotice[] = [], lineage?: Lineage): Promise<Refusals> {
  const now = new Date().toISOString();
  const refusals = await startMatchingRuns(db, accountId, activities, now, lineage);
  if (notices.length > 0) {
    await enqueueWebhookEvents(
      db,
      notices.map((n): WebhookEvent => ({ accountId, type: n.type, data: { contact: n.contact } })),
    );
  }
  return refusals;
}
