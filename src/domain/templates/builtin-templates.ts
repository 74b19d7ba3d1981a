import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../paths.ts';
import type { ContentFormat } from '../content/content.ts';

/**
 * D22's built-in gallery: at least six responsive MJML starters and two layouts, each an `.mjml`
 * file in builtin/ (so a designer can open it in any MJML editor). They are written into the
 * templates table at start-up (see built-in-sync.ts), keyed by builtin_key so their ids stay
 * stable from release to release while their bodies improve.
 *
 * The two layouts differ in where the slot sits, which decides what content they suit
 * (compileContent): in `layout-text-slot` it is inside an `<mj-text>`, so HTML or Markdown
 * content (compiled first) drops into a styled text block; in `layout-section-slot` it sits in
 * `<mj-body>` between sections, so MJML content (`<mj-section>`s) is spliced in as source.
 */
export type TemplateKind = 'layout' | 'starter';

export interface BuiltinSource {
  builtin_key: string;
  name: string;
  kind: TemplateKind;
  format: ContentFormat;
  body: string;
}

/** A built-in as it is stored: its source and the HTML it compiles to. */
export interface BuiltinTemplate extends BuiltinSource {
  compiled_html: string;
}

export const BUILTIN_DIR = join(projectRoot, 'src', 'domain', 'templates', 'builtin');

/**
 * The gallery's compiled HTML, shipped beside its sources (`npm run gallery:compile` writes it;
 * the gallery test fails while it is stale): compiling it at each start loaded mjml on the HTTP
 * thread, about a third of a second, which users' content only ever compiles off.
 */
export const COMPILED_GALLERY_FILE = join(BUILTIN_DIR, 'compiled.json');

function builtin(builtin_key: string, name: string, kind: TemplateKind): BuiltinSource {
  return { builtin_key, name, kind, format: 'mjml', body: readFileSync(join(BUILTIN_DIR, `${builtin_key}.mjml`), 'utf8') };
}

export const BUILTIN_SOURCES: readonly BuiltinSource[] = [
  builtin('newsletter', 'Newsletter', 'starter'),
  builtin('announcement', 'Announcement', 'starter'),
  builtin('product', 'Product showcase', 'starter'),
  builtin('welcome', 'Welcome', 'starter'),
  builtin('event', 'Event invitation', 'starter'),
  builtin('plain', 'Plain letter', 'starter'),
  builtin('layout-text-slot', 'Simple layout (slot in a text block: for HTML or Markdown content)', 'layout'),
  builtin('layout-section-slot', 'Branded layout (slot between sections: for MJML content)', 'layout'),
];

/**
 * D26.4: where the built-ins' .mjml files say PUBLIC_URL, which differs from one deployment to the
 * next while their HTML is compiled ahead: their images are `https://public-url.invalid/media/builtin/<name>.png`
 * (a name that never resolves), and this origin becomes the service's PUBLIC_URL when they are
 * written into the templates table. From there every use has the real address: the gallery's
 * thumbnails, a campaign started from a starter or duplicated, a layout around content, and the
 * mail, its previews and test sends.
 */
export const PUBLIC_URL_PLACEHOLDER = 'https://public-url.invalid';

let compiledGallery: Record<string, string> | null = null;

/** compiled.json: each built-in's HTML by its key, as shipped (with PUBLIC_URL_PLACEHOLDER), read when first asked for. */
export function shippedGallery(): Record<string, string> {
  compiledGallery ??= JSON.parse(readFileSync(COMPILED_GALLERY_FILE, 'utf8')) as Record<string, string>;
  return compiledGallery;
}

/** The built-ins with their shipped HTML, their images on `publicUrl` (D26.4). */
export function builtinTemplates(publicUrl: string): BuiltinTemplate[] {
  const shipped = shippedGallery();
  const onPublicUrl = (text: string) => text.replaceAll(PUBLIC_URL_PLACEHOLDER, publicUrl);
  return BUILTIN_SOURCES.map((source) => {
    const compiled_html = shipped[source.builtin_key];
    if (compiled_html === undefined) throw new Error(`the built-in ${source.builtin_key} is not in compiled.json: run npm run gallery:compile`);
    return { ...source, body: onPublicUrl(source.body), compiled_html: onPublicUrl(compiled_html) };
  });
}
