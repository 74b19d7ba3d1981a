import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root folder (where its package.json is). Found by walking up from this module
 * rather than fixed relative to it, because `bin/sendwell` runs the sources bundled into
 * node_modules/.cache/sendwell/<hash>/, while tests run them in place under src/.
 * Use it for files shipped with the project (e.g. the built web app), never for data.
 */
export const projectRoot: string = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'sendwell') return dir;
    if (dirname(dir) === dir) throw new Error(`no sendwell package.json above ${from}`);
  }
}
