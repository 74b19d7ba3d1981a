import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root folder (where its package.json is). Found by walking up from this module
 * rather than fixed relative to it, because `bin/sendwell` runs the sources bundled into
 * node_modules/.cache/sendwell/<hash>/, while tests run them in place under src/.
 * Use it for files shipped with the project (e.g. the built web app, the built-in templates),
 * never for data. bin/sendwell names it in the bundle (`__SENDWELL_PROJECT_ROOT__`), so a checkout
 * whose node_modules links to another one's still reads its own files.
 */
declare const __SENDWELL_PROJECT_ROOT__: string | undefined;
export const projectRoot: string = typeof __SENDWELL_PROJECT_ROOT__ === 'string' ? __SENDWELL_PROJECT_ROOT__ : findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'sendwell') return dir;
    if (dirname(dir) === dir) throw new Error(`no sendwell package.json above ${from}`);
  }
}
