import { describe, expect, it } from 'vitest';
import { SLUG_MAX, slugOf, uniqueSlug } from './account-slug.ts';

// D22: slugs are lowercase letters, digits and dashes, made from the name, unique.
describe('slugOf', () => {
  it.each([
    ['Acme', 'acme'],
    ['Acme Inc.', 'acme-inc'],
    ['  Café Olé!  ', 'cafe-ole'],
    ['a--b__c', 'a-b-c'],
    ['Ünïcödé 2026', 'unicode-2026'],
    ['日本', 'account'],
    ['', 'account'],
    ['---', 'account'],
  ])('%j is %j', (name, slug) => expect(slugOf(name)).toBe(slug));

  it('is at most SLUG_MAX characters and never ends in a dash', () => {
    const slug = slugOf('word '.repeat(40));
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX);
    expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});

describe('uniqueSlug', () => {
  it('keeps a free slug and numbers a taken one from 2', () => {
    const taken = new Set(['acme', 'acme-2']);
    expect(uniqueSlug('free', (s) => taken.has(s))).toBe('free');
    expect(uniqueSlug('acme', (s) => taken.has(s))).toBe('acme-3');
  });

  it('stays within SLUG_MAX with its suffix', () => {
    const base = 'a'.repeat(SLUG_MAX);
    expect(uniqueSlug(base, (s) => s === base)).toBe('a'.repeat(SLUG_MAX - 2) + '-2');
  });
});
