// The CLI entry, which bin/sendwell starts with node. The TypeScript sources are bundled with
// esbuild at start (about 0.2 s) into a content-addressed folder under node_modules/.cache, then
// run as plain JavaScript. There is no build step to forget, and unlike an on-the-fly loader
// (tsx), no loader thread stays resident: that thread alone cost a process about 35 MB, which a
// sender-only process cannot spare.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = join(root, 'node_modules', '.cache', 'sendwell');
const stagingOut = join(cacheDir, 'out');

const { outputFiles } = buildSync({
  absWorkingDir: root,
  // The render, compile and bounce-parse threads' code, and the read processes' (read-pool.ts), are entries of their own.
  entryPoints: {
    cli: 'src/cli.ts',
    'render-worker': 'src/sending/render-worker.ts',
    'compile-worker': 'src/domain/content/compile-worker.ts',
    'bounce-parse-worker': 'src/feedback/bounce-parse-worker.ts',
    'read-worker': 'src/db/read-worker.ts',
  },
  bundle: true,
  splitting: true, // dynamic imports (the HTTP app) stay separate chunks, loaded only when used
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  outdir: stagingOut,
  write: false,
  logLevel: 'error',
  // src/paths.ts: the project is this folder, even when node_modules (and so the bundle) is a link to another checkout's
  define: { __SENDWELL_PROJECT_ROOT__: JSON.stringify(root) },
});

const hash = createHash('sha256');
for (const f of outputFiles) hash.update(relative(stagingOut, f.path)).update(f.contents);
const bundleDir = join(cacheDir, hash.digest('hex').slice(0, 16));

if (!existsSync(bundleDir)) {
  // Written aside and renamed into place, so processes starting at the same moment never see
  // a half-written bundle.
  mkdirSync(cacheDir, { recursive: true });
  const tmp = mkdtempSync(join(cacheDir, 'tmp-'));
  for (const f of outputFiles) {
    const target = join(tmp, relative(stagingOut, f.path));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.contents);
  }
  try {
    renameSync(tmp, bundleDir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process put the same bundle there first
  }
}

process.setSourceMapsEnabled(true); // stack traces name the TypeScript sources
const { main } = await import(pathToFileURL(join(bundleDir, 'cli.js')).href);
await main(process.argv);
