import { ValidationError } from './errors.ts';

/**
 * A name trimmed, and the key its uniqueness within an account is decided on (trimmed,
 * lower-cased): one rule for lists (D12) and segments (D18). 400 naming `field` outside 1-`max`
 * characters.
 */
export function nameWithKey(raw: string, max: number, field = 'name'): { name: string; nameKey: string } {
  const name = raw.trim();
  const length = [...name].length;
  if (length < 1 || length > max) throw new ValidationError(`${field} must be 1-${max} characters`);
  return { name, nameKey: name.toLowerCase() };
}

/** An optional free text (a description) of at most `max` characters, else 400 naming `field`. */
export function boundedText(value: string | null | undefined, max: number, field = 'description'): string | null | undefined {
  if (typeof value === 'string' && [...value].length > max) throw new ValidationError(`${field} must be at most ${max} characters`);
  return value;
}
