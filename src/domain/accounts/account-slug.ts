import { asciiWords } from '../shared/ascii-words.ts';

/**
 * D22: an account's slug, the name its public archive is found by (`/archive/{slug}`): made from
 * the name at creation, lowercase ASCII letters, digits and single dashes. Accents are folded
 * ("Café Olé" is `cafe-ole`); a name with nothing usable is `account`. Unique: a taken slug gets
 * `-2`, `-3`, … (uniqueSlug).
 */
export const SLUG_MAX = 60;

export function slugOf(name: string): string {
  const slug = asciiWords(name, '-').slice(0, SLUG_MAX).replace(/-+$/, '');
  return slug === '' ? 'account' : slug;
}

/** `base`, or `base-N` with the smallest N from 2 that `taken` does not hold. */
export function uniqueSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '') + suffix;
    if (!taken(candidate)) return candidate;
  }
}
