/**
 * The form builder's model (D20): the fields a sign-up form asks for, in order, and the choices
 * the builder offers. Pure; the names and limits are the server's own (src/domain/forms/form.ts),
 * so the builder never offers what the API would refuse.
 */
import { CUSTOM_FIELD_KEY } from '../../src/domain/contacts/custom-field-key.ts';
import { CUSTOM_FIELD_PREFIX, customFieldKey, FORM_LIMITS, STANDARD_FORM_FIELDS, type FormField, type StandardFormField } from '../../src/domain/forms/form.ts';

export type BuilderField = FormField;

const STANDARD_LABELS: Record<StandardFormField, string> = { email: 'E-mail', first_name: 'First name', last_name: 'Last name' };

const isStandard = (name: string): name is StandardFormField => (STANDARD_FORM_FIELDS as readonly string[]).includes(name);

/** What a field is, in words: "First name", "Custom field company". */
export function fieldTitle(name: string): string {
  if (isStandard(name)) return STANDARD_LABELS[name];
  return `Custom field ${customFieldKey(name) ?? name}`;
}

/** The label a new field starts with: the standard one, or the key in words (`company_size`: "Company size"). */
export function defaultLabel(name: string): string {
  if (isStandard(name)) return STANDARD_LABELS[name];
  const words = (customFieldKey(name) ?? name).replace(/_+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A new form asks for the address only. */
export const newFields = (): BuilderField[] => [{ name: 'email', label: STANDARD_LABELS.email, required: true }];

/** The fields that can still be added: unused standard ones, then the account's custom fields not asked for yet. */
export function addableFields(fields: BuilderField[], customKeys: string[]): { value: string; label: string }[] {
  if (fields.length >= FORM_LIMITS.fieldsMax) return [];
  const used = new Set(fields.map((f) => f.name));
  const names = [...STANDARD_FORM_FIELDS, ...[...customKeys].sort().map((key) => CUSTOM_FIELD_PREFIX + key)];
  return names.filter((name) => !used.has(name)).map((name) => ({ value: name, label: fieldTitle(name) }));
}

/** Why `key` cannot be added as a new custom field, or null. */
export function customKeyProblem(key: string, fields: BuilderField[]): string | null {
  if (!CUSTOM_FIELD_KEY.test(key)) return 'A key starts with a letter, then up to 63 letters, digits or _.';
  if (fields.some((f) => f.name === CUSTOM_FIELD_PREFIX + key)) return 'The form already asks for this field.';
  if (fields.length >= FORM_LIMITS.fieldsMax) return `A form has at most ${FORM_LIMITS.fieldsMax} fields.`;
  return null;
}

export function addField(fields: BuilderField[], name: string): BuilderField[] {
  if (fields.some((f) => f.name === name) || fields.length >= FORM_LIMITS.fieldsMax) return fields;
  return [...fields, { name, label: defaultLabel(name), required: false }];
}

/** The field at `index` moved one place up (-1) or down (+1); at either end it stays. */
export function moveField(fields: BuilderField[], index: number, delta: -1 | 1): BuilderField[] {
  const to = index + delta;
  if (to < 0 || to >= fields.length) return fields;
  const moved = [...fields];
  [moved[index], moved[to]] = [moved[to], moved[index]];
  return moved;
}

/** Every field but the address may go (the server refuses a form without it). */
export function removeField(fields: BuilderField[], index: number): BuilderField[] {
  return fields[index]?.name === 'email' ? fields : fields.filter((_, i) => i !== index);
}

export function updateField(fields: BuilderField[], index: number, change: Partial<Omit<BuilderField, 'name'>>): BuilderField[] {
  return fields.map((f, i) => (i === index ? { ...f, ...change, required: f.name === 'email' ? true : (change.required ?? f.required) } : f));
}
