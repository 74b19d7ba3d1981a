import type { ActingContext } from '../shared/actor.ts';
import type { DbHandle } from '../../db/connect.ts';
import { normaliseEmail } from '../shared/email-address.ts';
import { findOrCreateContact } from '../contacts/contacts.repo.ts';
import { suppressReturningErasedAddresses } from '../suppressions/erased-addresses.ts';
import { ValidationError } from '../shared/errors.ts';
import { writeJson } from '../shared/json.ts';
import { AUTOMATION_LIMITS, EVENT_DATA_MAX_BYTES, EVENT_DATA_MAX_DEPTH, nestsDeeperThan } from './automation-definition.ts';
import type { Activity, ContactNotice } from '../contacts/activity.ts';
import { announceContactActivity } from './contact-activity.ts';
import { insertEvent } from './events.repo.ts';
import { insertConsent } from '../consent/consents.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

export interface EventInput {
  email: string;
  event: string;
  data?: Record<string, unknown> | null;
}

/**
 * D14 `POST /v1/events`: the event is stored for its contact (created when the e-mail is unknown,
 * waiting for consent: issue 30 item 6) and EVENT automations listening for its name start, all in one transaction.
 */
export class EventService {
  constructor(private readonly handle: DbHandle) {}

  async record(acting: ActingContext, accountId: number, input: EventInput): Promise<{ id: number }> {
    const email = normaliseEmail(input.email);
    const length = [...input.event].length;
    if (length < 1 || length > AUTOMATION_LIMITS.eventMax) throw new ValidationError(`event must be 1-${AUTOMATION_LIMITS.eventMax} characters`);
    const data = input.data ?? {};
    // Before anything walks `data` recursively (writeJson is JSON.stringify).
    if (nestsDeeperThan(data, EVENT_DATA_MAX_DEPTH)) throw new ValidationError(`data must nest objects and arrays at most ${EVENT_DATA_MAX_DEPTH} levels deep`);
    const serialized = writeJson(data);
    if (Buffer.byteLength(serialized) > EVENT_DATA_MAX_BYTES) throw new ValidationError(`data must be at most ${EVENT_DATA_MAX_BYTES} bytes as JSON`);

    return this.handle.db.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const activities: Activity[] = [];
      const notices: ContactNotice[] = [];
      // Most events are about known contacts: found first; an unknown e-mail is created once however many arrive at once.
      const { id: contactId, created } = await findOrCreateContact(trx, accountId, email, now);
      if (created) {
        // D21: an address erased before stays unmailed until a double opt-in brings it back.
        await suppressReturningErasedAddresses(trx, accountId, [email], now);
        // Issue 30 item 6: where it came from, on its consent record, which names no list: no one consented.
        await insertConsent(trx, { account_id: accountId, contact_id: contactId, source: 'EVENT', form_id: null, list_ids: '[]', ip: null, user_agent: null, created_at: now });
        activities.push({ type: 'CONTACT_CREATED', contactId });
        notices.push({ type: 'contact.created', contact: { id: contactId, email } });
        // D24.8: the contact the API made is recorded; the event itself, like a send, is data, not a change.
        await recordAudit(trx, acting, accountId, 'contact.created', { type: 'contact', id: contactId });
      }
      const eventId = await insertEvent(trx, { account_id: accountId, contact_id: contactId, name: input.event, data: serialized, created_at: now });
      activities.push({ type: 'EVENT', contactId, event: input.event, data });
      await announceContactActivity(trx, accountId, activities, notices);
      return { id: eventId };
    });
  }
}
