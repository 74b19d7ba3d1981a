import { readCustomValue } from '../../src/domain/contacts/csv-columns.ts';

export type CustomValue = string | number | boolean | null;

/**
 * A custom field as the form sends it: an unchanged value as it was, so saving the form keeps a
 * number or a boolean typed (it turned `true` into "true"); an edited number or boolean stays one
 * when the text still reads as one (the CSV import's rule); anything else is text.
 */
export function customValueToSave(before: CustomValue | undefined, text: string): CustomValue {
  if (before !== undefined && before !== null && String(before) === text) return before;
  if (typeof before === 'number' || typeof before === 'boolean') {
    const read = readCustomValue(text.trim());
    if (typeof read === typeof before) return read;
  }
  return text;
}
