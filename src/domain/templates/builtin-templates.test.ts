import { describe, expect, it } from 'vitest';
import { compileContent } from '../content/compile-content.ts';
import { checkLayoutSlot } from '../content/content.ts';
import { readdirSync } from 'node:fs';
import { compileGallery } from './builtin-gallery-compile.ts';
import { BUILTIN_IMAGES_DIR, builtinImage } from './builtin-images.ts';
import { BUILTIN_SOURCES, PUBLIC_URL_PLACEHOLDER, shippedGallery } from './builtin-templates.ts';

// D22: at least six built-in responsive starters (newsletter, announcement, product, welcome,
// event, plain) and layouts, all compiling under MJML's strict validation.
describe('the built-in gallery (D22)', () => {
  it('ships the six named starters and at least two layouts, with unique keys', () => {
    const starters = BUILTIN_SOURCES.filter((t) => t.kind === 'starter').map((t) => t.builtin_key);
    expect(starters).toEqual(expect.arrayContaining(['newsletter', 'announcement', 'product', 'welcome', 'event', 'plain']));
    expect(BUILTIN_SOURCES.filter((t) => t.kind === 'layout').length).toBeGreaterThanOrEqual(2);
    expect(new Set(BUILTIN_SOURCES.map((t) => t.builtin_key)).size).toBe(BUILTIN_SOURCES.length);
  });

  it('ships each built-in compiled as its source compiles now (npm run gallery:compile writes it)', async () => {
    expect(shippedGallery()).toEqual(await compileGallery());
  });

  it('ships every picture the built-ins show, and no picture none shows (D26.4)', () => {
    const picture = new RegExp(`${PUBLIC_URL_PLACEHOLDER.replace(/\./g, '\\.')}/media/builtin/([^"')\\s]+)`, 'g');
    const named = new Set(BUILTIN_SOURCES.flatMap((t) => [...t.body.matchAll(picture)].map((m) => m[1])));
    for (const file of named) expect(builtinImage(file), file).not.toBeNull();
    expect(new Set(readdirSync(BUILTIN_IMAGES_DIR))).toEqual(named);
  });

  it.each(BUILTIN_SOURCES.filter((t) => t.kind === 'starter'))('starter $builtin_key compiles strictly, inlines its CSS, and keeps its footer links and merge fields', async (t) => {
    const html = await compileContent({ format: t.format, body: t.body }, null, 'body');
    expect(html).toContain('style=');
    for (const link of ['{{ unsubscribe_url }}', '{{ preferences_url }}', '{{ webview_url }}']) expect(html).toContain(`href="${link}"`);
    expect(html).toMatch(/\{\{ first_name \| default: "[^"]+" \}\}/);
    // a social link opens the profile it names, not a "share this" page (MJML's networks without -noshare)
    expect(html).not.toMatch(/twitter\.com\/intent|shareArticle|facebook\.com\/sharer|pinterest\.com\/pin\/create/);
    // every image says what it shows
    for (const img of html.match(/<img\b[^>]*>/g) ?? []) expect(img).toMatch(/alt="[^"]+"/);
  });

  it.each(BUILTIN_SOURCES.filter((t) => t.kind === 'layout'))('layout $builtin_key holds {{ content }} once, compiles alone and around content', async (t) => {
    expect(() => checkLayoutSlot(t.body)).not.toThrow();
    await expect(compileContent({ format: t.format, body: t.body }, null, 'body')).resolves.toContain('unsubscribe_url');
    const content = t.builtin_key === 'layout-section-slot'
      ? { format: 'mjml' as const, body: '<mj-section><mj-column><mj-text>Hello {{ first_name }}</mj-text></mj-column></mj-section>' }
      : { format: 'markdown' as const, body: '# Hello {{ first_name }}\n\nSome *news*.' };
    const html = await compileContent(content, { format: t.format, body: t.body });
    expect(html).toContain('Hello {{ first_name }}');
  });
});
