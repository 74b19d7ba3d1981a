import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The API serves the built dashboard (web/dist). A fresh clone has it from `npm ci` (the
 * `prepare` script); this builds it for `npm test` when it is still missing, once per run.
 */
export default async function buildWebWhenMissing(): Promise<void> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (existsSync(join(root, 'web', 'dist', 'index.html'))) return;
  const { build } = await import('vite');
  await build({ root: join(root, 'web'), configFile: join(root, 'web', 'vite.config.ts'), logLevel: 'warn' });
}
