import type { Insertable } from 'kysely';
import type { ConsentRow, ConsentsTable } from '../../db/schema.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { toApiTimestamp } from '../shared/time.ts';

/**
 * D20: where a consent came from. Issue 30 item 6: EVENT records where a contact came from when
 * an event for an unknown address made it, with no lists: no consent was given, and the contact
 * waits (not mailed) until it subscribes.
 */
export const CONSENT_SOURCES = ['FORM', 'API', 'IMPORT', 'CONFIRMATION', 'EVENT'] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];
/** What asks for a subscription; CONFIRMATION is only ever the person's answer to the mail, EVENT never subscribes. */
export type SubscriptionSource = Exclude<ConsentSource, 'CONFIRMATION' | 'EVENT'>;

/** A consent record as the API shows it (`GET /contacts/{email}/consents`, D20) and D21's export. */
export interface Consent {
  source: ConsentSource;
  form_id: number | null;
  list_ids: number[];
  ip: string | null;
  user_agent: string | null;
  /** issue 34: the words consent was given on (what an importer confirmed, or a form's consent checkbox as the person saw it); null when none were kept */
  statement: string | null;
  at: string;
}

/** How long a stored client address and user agent may be: what a request can carry, and no more. */
export const CONSENT_LIMITS = { ipMax: 64, userAgentMax: 512, statementMax: 500 } as const;

export function toConsent(row: ConsentRow): Consent {
  return {
    source: row.source,
    form_id: row.form_id === null ? null : Number(row.form_id),
    list_ids: readJson<(number | string)[]>(row.list_ids, []).map(Number),
    ip: row.ip,
    user_agent: row.user_agent,
    statement: row.statement ?? null,
    at: toApiTimestamp(row.created_at),
  };
}

/** A request's client facts, cut to what is stored (a user agent is the client's to make as long as it likes). */
export function clientFacts(ip: string | null | undefined, userAgent: string | null | undefined): { ip: string | null; user_agent: string | null } {
  return { ip: ip ? ip.slice(0, CONSENT_LIMITS.ipMax) : null, user_agent: userAgent ? userAgent.slice(0, CONSENT_LIMITS.userAgentMax) : null };
}

/** D26.3: when and from where a person consented, as the imported file says (Mailchimp's OPTIN_TIME and OPTIN_IP). */
export interface ImportedConsent {
  /** stored form (nowIso's) */
  at?: string;
  ip?: string;
}

/**
 * D20: an import's consent records, one per contact that joined lists (each SUBSCRIBED membership
 * it made), naming those lists: built from what the import joined, written in one statement per
 * 500 rows, so recording costs the import no per-contact round trip. A contact's record is dated
 * when the file says it consented, else `now` (D26.3).
 *
 * Issue 34: with the importer's `statement` (what they confirmed of these people's consent), each
 * record keeps it, and a contact the import created without joining a list gets a record too (no
 * lists): the confirmation is about everyone the file brought in.
 */
export function importConsents(
  accountId: number,
  joined: readonly { contactId: number; listId: number }[],
  now: string,
  given: ReadonlyMap<number, ImportedConsent> = new Map(),
  attested: { statement: string; created: readonly number[] } | null = null,
): Insertable<ConsentsTable>[] {
  const byContact = new Map<number, number[]>();
  for (const contactId of attested?.created ?? []) byContact.set(contactId, []);
  for (const { contactId, listId } of joined) byContact.set(contactId, [...(byContact.get(contactId) ?? []), listId]);
  return [...byContact].map(([contactId, listIds]) => ({
    account_id: accountId,
    contact_id: contactId,
    source: 'IMPORT' as const,
    form_id: null,
    list_ids: writeJson([...new Set(listIds)].sort((a, b) => a - b)),
    ip: given.get(contactId)?.ip ?? null,
    user_agent: null,
    statement: attested?.statement ?? null,
    created_at: given.get(contactId)?.at ?? now,
  }));
}
