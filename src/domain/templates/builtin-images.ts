import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_DIR } from './builtin-templates.ts';

/**
 * D26.4: the pictures of the built-in gallery ship with the service (drawn by `npm run
 * gallery:images`, scripts/gallery-images.ts) and are served at `PUBLIC_URL/media/builtin/<name>.png`,
 * so a built-in template loads nothing from another host.
 */
export const BUILTIN_IMAGES_DIR = join(BUILTIN_DIR, 'images');

let images: Map<string, Buffer> | null = null;

/** A built-in picture's PNG by its file name (`newsletter-feature.png`), or null when there is none such. */
export function builtinImage(file: string): Buffer | null {
  // A few dozen KB in all: read once, when first asked for.
  images ??= new Map(readdirSync(BUILTIN_IMAGES_DIR).filter((name) => name.endsWith('.png')).map((name) => [name, readFileSync(join(BUILTIN_IMAGES_DIR, name))]));
  return images.get(file) ?? null;
}
