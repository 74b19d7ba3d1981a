import type { DbHandle } from '../../db/connect.ts';
import { customFieldKeysInUse } from '../contacts/contacts.repo.ts';
import { customFieldKeyOf, unknownMergeFields, unknownMergeFieldWarning, type MergeFieldPlace } from './merge-fields.ts';

/**
 * D26.7: a custom field is in use when one of the account's newest this many contacts holds it,
 * the sample the segment builder offers its fields from: one bounded read, whatever the account's size.
 */
export const CUSTOM_FIELDS_IN_USE_SAMPLE = 10_000;

/**
 * D26.7: the merge fields of `used` (content at `place`) that nothing fills (unknownMergeFields).
 * `used` comes from a parse already made (the syntax check's, or the content check's on the
 * compile thread), so nothing is parsed here; the account's custom fields are read only when a
 * name could be one.
 */
export async function unknownMergeFieldsOf(handle: DbHandle, accountId: number, used: readonly string[], place: MergeFieldPlace): Promise<string[]> {
  const mayBeCustom = used.some((name) => customFieldKeyOf(name, place) !== null);
  const inUse = mayBeCustom ? await customFieldKeysInUse(handle.db, handle.dialect, accountId, CUSTOM_FIELDS_IN_USE_SAMPLE) : new Set<string>();
  return unknownMergeFields(used, place, inUse);
}

/** D26.7: the `warnings` entries (D17) of content saved at `place`, one per unknown merge field, naming it. */
export async function mergeFieldWarnings(handle: DbHandle, accountId: number, used: readonly string[], place: MergeFieldPlace): Promise<string[]> {
  return (await unknownMergeFieldsOf(handle, accountId, used, place)).map(unknownMergeFieldWarning);
}
