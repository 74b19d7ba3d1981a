import type { ActingContext } from '../shared/actor.ts';
import { isIP } from 'node:net';
import type { Db, DbHandle } from '../../db/connect.ts';
import { addMembersByEmail, findList, findListByNameKey, insertList } from '../lists/lists.repo.ts';
import { listName, listNotFound } from '../lists/list.ts';
import { DomainError, ValidationError } from '../shared/errors.ts';
import { fieldWithNul } from '../shared/nul.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { tagActivities, type Activity, type AnnounceActivity, type ContactNotice } from '../contacts/activity.ts';
import { findContactsByEmails, upsertContacts, type BulkContactRow, type ExistingContact } from '../contacts/bulk-import.repo.ts';
import { applyStatusChangeByEmails } from '../contacts/contacts.repo.ts';
import { suppressReturningErasedAddresses } from '../suppressions/erased-addresses.ts';
import { importChangeFor, type StatusChange } from '../contacts/contact-status.ts';
import { CONTACT_STATUSES, mergeCustomFields, normaliseName, normalisePhone, normaliseTags, type ContactStatus, type CustomFields } from '../contacts/contact-fields.ts';
import { normaliseEmail } from '../shared/email-address.ts';
import { nowIso, parseInputTimestamp } from '../shared/time.ts';
import { BULK_LIMITS, IMPORT_LIST_LIMITS } from '../contacts/bulk-import.ts';
import { CONSENT_LIMITS, importConsents, type ImportedConsent } from '../consent/consent.ts';
import { insertConsents } from '../consent/consents.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

export interface BulkImportInput {
  /** a list id as text (D14: `listId` is a string) or a number */
  listId?: string | number | null;
  contacts: unknown[];
  /** D14: default true; false updates existing contacts with the fields given */
  skipDuplicates?: boolean;
  /** issue 34: what the importer confirmed of these people's consent, kept in the IMPORT consent records */
  consentStatement?: string | null;
}

export interface BulkItemError {
  index: number;
  email: string | null;
  message: string;
}

export interface BulkImportResult {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  errors: BulkItemError[];
}

/** One item after D11's normalisers: `undefined` means "not given" (an update keeps the old value). */
interface BulkContact {
  index: number;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  tags?: string[];
  custom_fields?: Record<string, unknown>;
  /** D17.6: a new contact's status; for an existing one, applied as contact-status.ts allows */
  status?: ContactStatus;
  /** D17.6: list names (created when missing) */
  lists?: string[];
  /** D26.3: when and from where the person consented, for the IMPORT consent record */
  consent?: ImportedConsent;
}

function optionalString(item: Record<string, unknown>, field: string): string | null | undefined {
  const value = item[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw new ValidationError(`${field} must be a string`);
  return value;
}

/**
 * An integration item (camelCase, D14) through the same normalisers as a single create (D11).
 * `name` is split at the first space into first and last name; `firstName`/`lastName` win over it.
 */
export function normaliseBulkItem(raw: unknown, index: number): BulkContact {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError('each contact must be an object');
  const withNul = fieldWithNul(raw, 'contact');
  if (withNul) throw new ValidationError(`${withNul} must not contain the NUL character (U+0000)`);
  const item = raw as Record<string, unknown>;
  if (typeof item.email !== 'string') throw new ValidationError('email is required and must be a string');
  const email = normaliseEmail(item.email);
  const name = optionalString(item, 'name');
  const space = name ? name.indexOf(' ') : -1;
  const fromName = name ? { first: space < 0 ? name : name.slice(0, space), last: space < 0 ? null : name.slice(space + 1) } : undefined;
  const first = optionalString(item, 'firstName') ?? fromName?.first;
  const last = optionalString(item, 'lastName') ?? (fromName ? fromName.last : undefined);
  const out: BulkContact = {
    index,
    email,
    first_name: normaliseName('firstName', first),
    last_name: normaliseName('lastName', last),
    phone: normalisePhone(optionalString(item, 'phone')),
  };
  if (item.tags !== undefined && item.tags !== null) {
    if (!Array.isArray(item.tags) || !item.tags.every((t) => typeof t === 'string')) throw new ValidationError('tags must be an array of strings');
    out.tags = normaliseTags(item.tags as string[]);
  }
  if (item.status !== undefined && item.status !== null) {
    if (typeof item.status !== 'string' || !(CONTACT_STATUSES as readonly string[]).includes(item.status)) throw new ValidationError(`status must be one of ${CONTACT_STATUSES.join(', ')}`);
    out.status = item.status as ContactStatus;
  }
  if (item.lists !== undefined && item.lists !== null) {
    if (!Array.isArray(item.lists) || !item.lists.every((l) => typeof l === 'string')) throw new ValidationError('lists must be an array of list names');
    if (item.lists.length > IMPORT_LIST_LIMITS.perItem) throw new ValidationError(`lists must hold at most ${IMPORT_LIST_LIMITS.perItem} names`);
    // The same name rule as POST /lists (list.ts), so a list an import creates is one the API could.
    out.lists = (item.lists as string[]).map((l, i) => listName(l, `lists[${i}]`).name);
  }
  if (item.customFields !== undefined && item.customFields !== null) {
    if (typeof item.customFields !== 'object' || Array.isArray(item.customFields)) throw new ValidationError('customFields must be an object');
    // Validated now; kept as given, so an update can remove a key with null (D11).
    mergeCustomFields({}, item.customFields as Record<string, unknown>, 'customFields');
    out.custom_fields = item.customFields as Record<string, unknown>;
  }
  const consent = importedConsent(item);
  if (consent) out.consent = consent;
  return out;
}

/** D26.3: `consentAt` (D1's input form; not in the future) and `consentIp`, which date and place the import's consent record. */
function importedConsent(item: Record<string, unknown>): ImportedConsent | null {
  const at = optionalString(item, 'consentAt');
  const ip = optionalString(item, 'consentIp');
  if (!at && !ip) return null;
  const consent: ImportedConsent = {};
  if (at) {
    consent.at = parseInputTimestamp('consentAt', at);
    if (consent.at > nowIso()) throw new ValidationError('consentAt must not be in the future');
  }
  if (ip) {
    if (isIP(ip.trim()) === 0 || ip.length > CONSENT_LIMITS.ipMax) throw new ValidationError('consentIp must be an IPv4 or IPv6 address');
    consent.ip = ip.trim();
  }
  return consent;
}

/** Issue 34: the importer's confirmation, trimmed; null when none was given. */
function consentStatementOf(raw: BulkImportInput['consentStatement']): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') throw new ValidationError('consentStatement must be a string');
  const statement = raw.trim();
  if (statement === '') return null;
  if (statement.includes('\u0000')) throw new ValidationError('consentStatement must not contain the NUL character (U+0000)');
  if ([...statement].length > CONSENT_LIMITS.statementMax) throw new ValidationError(`consentStatement must be at most ${CONSENT_LIMITS.statementMax} characters`);
  return statement;
}

function listIdOf(raw: BulkImportInput['listId']): number | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const text = String(raw).trim();
  if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(Number(text))) throw new ValidationError('listId must hold a list id (a positive integer)');
  return Number(text);
}

/**
 * D14 bulk import: invalid items are reported by index and never fail the batch; the valid ones
 * are written in one transaction with set-based SQL, whatever the batch size: one multi-row
 * upsert, one INSERT ... SELECT for list membership, and (to update) one read of the existing rows.
 */
export class BulkImportService {
  constructor(
    private readonly handle: DbHandle,
    /** automations' announcement of a contact's changes (a port: automations/ stands above contacts/) */
    private readonly announce: AnnounceActivity,
  ) {}

  async import(acting: ActingContext, accountId: number, input: BulkImportInput): Promise<BulkImportResult> {
    const items = input.contacts;
    if (!Array.isArray(items) || items.length < 1 || items.length > BULK_LIMITS.contactsMax) {
      throw new ValidationError(`contacts must hold 1-${BULK_LIMITS.contactsMax} contacts`);
    }
    const listId = listIdOf(input.listId);
    const statement = consentStatementOf(input.consentStatement);
    const skipDuplicates = input.skipDuplicates !== false;
    const result: BulkImportResult = { created: 0, updated: 0, skipped: 0, failed: 0, errors: [] };
    const fail = (index: number, raw: unknown, err: unknown) => {
      if (!(err instanceof DomainError)) throw err;
      const email = (raw as { email?: unknown } | null)?.email;
      result.failed++;
      result.errors.push({ index, email: typeof email === 'string' ? email : null, message: err.message });
    };

    // An e-mail repeated within the request counts once: its later occurrences are skipped (D14).
    const unique = new Map<string, BulkContact>();
    items.forEach((raw, index) => {
      try {
        const contact = normaliseBulkItem(raw, index);
        if (unique.has(contact.email)) result.skipped++;
        else unique.set(contact.email, contact);
      } catch (err) {
        fail(index, raw, err);
      }
    });
    const emails = [...unique.keys()];

    await this.handle.db.transaction().execute(async (trx) => {
      if (listId !== null && !(await findList(trx, accountId, listId))) throw listNotFound();
      if (emails.length === 0) return;
      // Updating needs the existing rows (to merge custom fields and diff tags). Skipping does not:
      // ON CONFLICT DO NOTHING leaves them, and what it did not write was a duplicate.
      const existing = new Map<string, ExistingContact>();
      if (!skipDuplicates) for (const row of await findContactsByEmails(trx, this.handle.dialect, accountId, emails)) existing.set(row.email, row);

      const now = new Date().toISOString();
      const rows: BulkContactRow[] = [];
      const previousTags = new Map<string, string[]>();
      for (const c of unique.values()) {
        const old = existing.get(c.email);
        if (!old) {
          rows.push(this.newRow(accountId, c, now));
          continue;
        }
        try {
          const tags = c.tags ?? readJson<string[]>(old.tags, []);
          const customFields: CustomFields = c.custom_fields
            ? mergeCustomFields(readJson<CustomFields>(old.custom_fields, {}), c.custom_fields, 'customFields')
            : readJson<CustomFields>(old.custom_fields, {});
          previousTags.set(c.email, readJson<string[]>(old.tags, []));
          rows.push({
            ...this.newRow(accountId, c, now),
            first_name: c.first_name === undefined ? old.first_name : c.first_name,
            last_name: c.last_name === undefined ? old.last_name : c.last_name,
            phone: c.phone === undefined ? old.phone : c.phone,
            tags: writeJson(tags),
            custom_fields: writeJson(customFields),
          });
        } catch (err) {
          fail(c.index, items[c.index], err);
          unique.delete(c.email);
        }
      }

      // In e-mail order, so concurrent imports lock shared contacts in the same order (no deadlock on PostgreSQL).
      rows.sort((x, y) => (x.email < y.email ? -1 : x.email > y.email ? 1 : 0));
      const written = await upsertContacts(trx, this.handle.dialect, rows, skipDuplicates ? 'skip' : 'update');
      // D24.8: one entry per import request (the CLI's file: per batch of rows), written with the
      // rows so that a step failing below (too many lists) takes both back; no id of its own: no target.
      await recordAudit(trx, acting, accountId, 'contacts.imported', null);

      const activities: Activity[] = [];
      const notices: ContactNotice[] = [];
      const createdEmails: string[] = [];
      for (const row of written) {
        const tags = readJson<string[]>(row.tags, []);
        const before = previousTags.get(row.email);
        if (before === undefined) {
          result.created++;
          createdEmails.push(row.email);
          activities.push({ type: 'CONTACT_CREATED', contactId: row.id }, ...tagActivities(row.id, [], tags));
          notices.push({ type: 'contact.created', contact: { id: row.id, email: row.email } });
        } else {
          result.updated++;
          activities.push(...tagActivities(row.id, before, tags));
          notices.push({ type: 'contact.updated', contact: { id: row.id, email: row.email } });
        }
      }
      // D21: addresses erased before stay unmailed until a double opt-in brings them back.
      await suppressReturningErasedAddresses(trx, accountId, createdEmails, now);
      // Rows not written existed (skipDuplicates), or were inserted first by a concurrent request: duplicates either way.
      result.skipped += rows.length - written.length;
      // D17.6: a file's UNSUBSCRIBED, BOUNCED or COMPLAINED holds for contacts that existed too,
      // skipped or not (an opt-out is never lost by moving a contact), as contact-status.ts allows.
      const byStatus = new Map<StatusChange, string[]>();
      for (const c of unique.values()) {
        const change = c.status === undefined ? null : importChangeFor(c.status);
        if (change) byStatus.set(change, [...(byStatus.get(change) ?? []), c.email]);
      }
      for (const [change, changed] of byStatus) await applyStatusChangeByEmails(trx, accountId, changed, change, now);
      // D17.6: lists by name, created when missing.
      const names = new Map<string, { name: string; emails: string[] }>();
      for (const c of unique.values()) {
        for (const name of c.lists ?? []) {
          const key = name.toLowerCase();
          const entry = names.get(key) ?? { name, emails: [] };
          entry.emails.push(c.email);
          names.set(key, entry);
        }
      }
      if (names.size > IMPORT_LIST_LIMITS.perRequest) throw new ValidationError(`an import may name at most ${IMPORT_LIST_LIMITS.perRequest} lists per request`);
      for (const [key, { name, emails: members }] of names) {
        const list = (await findListByNameKey(trx, accountId, key)) ?? (await insertList(trx, { account_id: accountId, name, name_key: key, description: null, is_active: 1, created_at: now, updated_at: now }));
        const joined = await addMembersByEmail(trx, accountId, Number(list.id), members, now);
        for (const contactId of joined) activities.push({ type: 'LIST_JOINED', contactId, listId: Number(list.id) });
      }
      if (listId !== null) {
        // D14: every valid item ends up in the list, skipped ones included.
        const joined = await addMembersByEmail(trx, accountId, listId, [...unique.keys()], now);
        for (const contactId of joined) activities.push({ type: 'LIST_JOINED', contactId, listId });
      }
      // D20: each list an import joined a contact to is an IMPORT consent record, dated as the file says (D26.3).
      // Issue 34: with the importer's confirmation, the contacts it created are recorded too, lists or not.
      const joined = activities.flatMap((a) => (a.type === 'LIST_JOINED' ? [a] : []));
      const attested = statement === null ? null : { statement, created: written.filter((row) => !previousTags.has(row.email)).map((row) => Number(row.id)) };
      const recording = joined.length > 0 || (attested?.created.length ?? 0) > 0;
      await insertConsents(trx, importConsents(accountId, joined, now, recording ? await this.consentsGiven(trx, accountId, unique) : undefined, attested));
      await this.announce(trx, accountId, activities, notices);
    });
    result.errors.sort((a, b) => a.index - b.index);
    return result;
  }

  /** D26.3: the consents the items gave, by contact id (skipped contacts' ids are not known without a read). */
  private async consentsGiven(db: Db, accountId: number, contacts: Map<string, BulkContact>): Promise<Map<number, ImportedConsent>> {
    const given = new Map<number, ImportedConsent>();
    const emails = [...contacts.values()].flatMap((c) => (c.consent ? [c.email] : []));
    for (const row of await findContactsByEmails(db, this.handle.dialect, accountId, emails)) given.set(Number(row.id), contacts.get(row.email)!.consent!);
    return given;
  }

  private newRow(accountId: number, c: BulkContact, now: string): BulkContactRow {
    return {
      account_id: accountId,
      email: c.email,
      first_name: c.first_name ?? null,
      last_name: c.last_name ?? null,
      phone: c.phone ?? null,
      tags: writeJson(c.tags ?? []),
      custom_fields: writeJson(c.custom_fields ? mergeCustomFields({}, c.custom_fields) : {}),
      status: c.status ?? 'SUBSCRIBED',
      created_at: now,
      updated_at: now,
    };
  }
}
