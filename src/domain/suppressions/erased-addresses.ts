import type { Db } from '../../db/connect.ts';
import { ERASED_RETURN_REASON, erasureValue } from './suppression.ts';
import { addSuppressions, erasureEntriesAmong } from './suppressions.repo.ts';
import { emailKey } from '../shared/email-address.ts';

/**
 * D21: an erased address is never mailed again until the person subscribes again through a form
 * with double opt-in. The erasure keeps only the address's hash (an ERASURE entry, erasureValue),
 * which no sending check can match; so when a contact with that address is created again (the
 * API, an import, an event), the address itself goes on the account's list, source ERASURE, in the
 * creating transaction. Every sending path (campaigns, automations, test sends) then refuses it
 * through D19's one suppression check. Confirming a double opt-in removes both entries (D20).
 * The addresses are hashed here, and looked up in one query per call. Answers the addresses that
 * came back.
 */
export async function suppressReturningErasedAddresses(db: Db, accountId: number, emails: string[], now: string): Promise<string[]> {
  if (emails.length === 0) return [];
  const byValue = new Map(emails.map((email) => [erasureValue(email), emailKey(email)]));
  const erased = await erasureEntriesAmong(db, accountId, [...byValue.keys()]);
  const returning = [...erased].map((value) => byValue.get(value)!);
  await addSuppressions(
    db,
    returning.map((email) => ({ account_id: accountId, value: email, reason: ERASED_RETURN_REASON, source: 'ERASURE', created_at: now })),
  );
  return returning;
}
