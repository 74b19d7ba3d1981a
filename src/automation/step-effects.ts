import type { Db } from '../db/connect.ts';
import { evaluateCondition, type Step } from '../domain/automations/automation-definition.ts';
import { tagActivities, type Activity, type ContactNotice } from '../domain/contacts/activity.ts';
import type { PendingConfirmation } from '../domain/consent/subscriptions.service.ts';
import { addToLeadScore, findContactForStep, setContactTags } from '../domain/contacts/contacts.repo.ts';
import { changeMemberships, findList, removeMember } from '../domain/lists/lists.repo.ts';
import { readJson, writeJson } from '../domain/shared/json.ts';

/**
 * What each automation step but SEND_EMAIL does to its contact, inside the step's transaction
 * (the runner holds the run, writes the step log and moves the run on in the same one).
 */

/** What a step's effect reads of its run. */
export interface StepRun {
  account_id: number;
  contact_id: number;
  /** the triggering event's data, as JSON (a CONDITION may test it) */
  event_data: string | null;
}

/** What a step did: its log status and detail, where the run goes next, and the changes it announces. */
export interface StepOutcome {
  status: 'DONE' | 'SKIPPED' | 'FALSE';
  detail: string | null;
  /** seconds until the next step may run (WAIT) */
  waitSeconds?: number;
  activities?: Activity[];
  notices?: ContactNotice[];
  /** issue 28: an ADD_TO_LIST step's membership waits on a double opt-in list: its mail goes once the step commits */
  confirmation?: PendingConfirmation;
}

/** The step's effect on the run's contact, and what it comes to. */
export async function stepEffect(trx: Db, run: StepRun, step: Exclude<Step, { type: 'SEND_EMAIL' }>, now: string): Promise<StepOutcome> {
  const contact = await requireContact(trx, run.contact_id);
  const updated: ContactNotice[] = [{ type: 'contact.updated', contact: { id: contact.id, email: contact.email } }];
  switch (step.type) {
    case 'WAIT':
      return { status: 'DONE', detail: `next step due in ${step.seconds} s`, waitSeconds: step.seconds };
    case 'ADD_TAG':
    case 'REMOVE_TAG': {
      const before = readJson<string[]>(contact.tags, []);
      const key = step.tag.toLowerCase();
      const has = before.some((t) => t.toLowerCase() === key);
      if (step.type === 'ADD_TAG' ? has : !has) return { status: 'SKIPPED', detail: step.type === 'ADD_TAG' ? 'the contact already has the tag' : 'the contact does not have the tag' };
      const after = step.type === 'ADD_TAG' ? [...before, step.tag] : before.filter((t) => t.toLowerCase() !== key);
      await setContactTags(trx, contact.id, writeJson(after), now);
      return { status: 'DONE', detail: null, activities: tagActivities(contact.id, before, after), notices: updated };
    }
    case 'ADD_TO_LIST':
    case 'REMOVE_FROM_LIST': {
      const list = await findList(trx, run.account_id, step.list_id);
      if (!list) return { status: 'SKIPPED', detail: `list ${step.list_id} no longer exists` };
      if (step.type === 'REMOVE_FROM_LIST') {
        const removed = await removeMember(trx, step.list_id, contact.id);
        return removed ? { status: 'DONE', detail: null } : { status: 'SKIPPED', detail: 'the contact was not in the list' };
      }
      // D20: a step makes a membership where there was none; an UNCONFIRMED or UNSUBSCRIBED one is the person's to change.
      // Issue 28: on a double opt-in list it waits UNCONFIRMED for the person, who gets the confirmation mail; a workflow never subscribes them silently.
      const double = list.opt_in === 'double';
      const joined = await changeMemberships(trx, step.list_id, [contact.id], double ? 'REQUEST_CONFIRMATION_NEW_ONLY' : 'ADD_NEW_ONLY', now);
      if (joined.length === 0) return { status: 'SKIPPED', detail: 'the contact was already in the list' };
      if (double) {
        const confirmation = { accountId: run.account_id, contactId: contact.id, email: contact.email, source: 'AUTOMATION' as const, lists: [{ ...list, id: Number(list.id) }] };
        return { status: 'DONE', detail: 'double opt-in list: the membership waits for the confirmation mailed to the contact', confirmation };
      }
      return { status: 'DONE', detail: null, activities: [{ type: 'LIST_JOINED', contactId: contact.id, listId: step.list_id }] };
    }
    case 'UPDATE_LEAD_SCORE':
      await addToLeadScore(trx, contact.id, step.delta, now);
      return { status: 'DONE', detail: `lead_score ${step.delta >= 0 ? '+' : ''}${step.delta}`, notices: updated };
    case 'CONDITION': {
      const holds = evaluateCondition(step, {
        tags: readJson<string[]>(contact.tags, []),
        lead_score: contact.lead_score,
        status: contact.status,
        custom_fields: readJson<Record<string, unknown>>(contact.custom_fields, {}),
        event: readJson<Record<string, unknown> | null>(run.event_data, null),
      });
      return { status: holds ? 'DONE' : 'FALSE', detail: `${step.field} ${step.op}${step.op === 'exists' ? '' : ` ${JSON.stringify(step.value)}`}: ${holds}` };
    }
  }
}

/** The run's contact; a run's contact cannot be missing (deleting a contact deletes its runs). */
export async function requireContact(db: Db, contactId: number) {
  const contact = await findContactForStep(db, contactId);
  if (!contact) throw new Error(`the contact ${contactId} of a run under way is missing`);
  return contact;
}
