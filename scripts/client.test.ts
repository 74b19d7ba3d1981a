/**
 * D17.8: the typed client in packages/client type-checks under `tsc --strict` (and fails on a
 * wrong field), and `client:check` (scripts/client.ts) fails when it is stale. No server: these
 * run once, not once per database (test/client/client.test.ts drives the client against one).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const clientDir = join(root, 'packages', 'client');

function run(args: string[], opts: { cwd?: string; file?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(opts.file ?? process.execPath, args, { cwd: opts.cwd ?? root, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}
const tsc = (project: string) => run([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project]);

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'sendwell-client-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the typed client (D17.8)', { timeout: 90_000 }, () => {
  it('type-checks under tsc --strict, and a wrong field name fails the check', async () => {
    const good = await tsc(clientDir);
    expect(good.stdout + good.stderr, 'tsc -p packages/client').toBe('');
    expect(good.code).toBe(0);

    // The same settings on a file that misspells a body field and a field of the answer.
    const bad = join(tmp, 'bad.mts');
    writeFileSync(
      bad,
      `import { createSendwellClient } from ${JSON.stringify(join(clientDir, 'src', 'index.ts'))};
const client = createSendwellClient({ baseUrl: 'http://localhost', apiKey: 'k' });
export async function misspelt() {
  await client.POST('/api/v1/contacts', { body: { emial: 'a@example.com' } });
  const read = await client.GET('/api/v1/contacts/{email}', { params: { path: { email: 'a@example.com' } } });
  return read.data?.data.frist_name;
}
`,
    );
    writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify({ extends: join(clientDir, 'tsconfig.json'), include: [], files: [bad] }));
    const failed = await tsc(tmp);
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toMatch(/'emial' does not exist/);
    expect(failed.stdout).toMatch(/'frist_name' does not exist/);
  });

  // Issue 30 item 12: the segment filter is the recursive SegmentFilter schema, so a group of any
  // kind types at any level; a wrong operator still fails.
  it('types a segment filter with `not` at the top and groups inside groups, and refuses an unknown op', async () => {
    const file = join(tmp, 'segment-filter.mts');
    const write = (op: string) =>
      writeFileSync(
        file,
        `import { createSendwellClient } from ${JSON.stringify(join(clientDir, 'src', 'index.ts'))};
const client = createSendwellClient({ baseUrl: 'http://localhost', apiKey: 'k' });
export async function segments() {
  await client.POST('/api/v1/segments/preview', { body: { filter: { not: { field: 'tags', op: '${op}', value: 'vip' } } } });
  const made = await client.POST('/api/v1/segments', {
    body: { name: 'Engaged', filter: { not: { any: [{ all: [{ field: 'custom_fields.plan', op: 'in', value: ['pro', 2] }] }, { field: 'campaign.opened', op: 'eq', value: false, campaign_id: 'any', within_days: null }] } } },
  });
  const filter = made.data?.data.filter;
  return filter && 'not' in filter ? filter.not : null;
}
`,
      );
    writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify({ extends: join(clientDir, 'tsconfig.json'), include: [], files: [file] }));
    write('contains');
    const typed = await tsc(tmp);
    expect(typed.stdout + typed.stderr, 'tsc on a filter with a top-level not').toBe('');
    expect(typed.code).toBe(0);

    write('resembles');
    const wrong = await tsc(tmp);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(/"resembles"/);
  });

  it('client:check passes on the committed client and fails, saying what to run, on a stale one', async () => {
    const committed = join(clientDir, 'src', 'schema.d.ts');
    const fresh = await run(['--import', 'tsx', join(root, 'scripts', 'client.ts'), 'check']);
    expect(fresh.stderr).toBe('');
    expect(fresh.code).toBe(0);

    const stale = join(tmp, 'schema.d.ts');
    writeFileSync(stale, readFileSync(committed, 'utf8').replace('first_name', 'firstname'));
    const result = await run(['--import', 'tsx', join(root, 'scripts', 'client.ts'), 'check', '--file', stale]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is stale.*npm run client:generate/);
  });

  // D26.11: an app depends on the client as a package: `npm pack` builds it, an empty project
  // installs the tarball, and the README's example type-checks there and the module loads.
  it('installs from a packed tarball into an empty project, where the README example type-checks and runs', async () => {
    const packed = await run(['pack', '--pack-destination', tmp, '--silent'], { cwd: clientDir, file: 'npm' });
    expect(packed.stderr + packed.stdout, 'npm pack').toMatch(/sendwell-client-\d+\.\d+\.\d+\.tgz/);
    expect(packed.code).toBe(0);
    const tarball = join(tmp, readdirSync(tmp).find((f) => f.endsWith('.tgz'))!);
    rmSync(join(clientDir, 'dist'), { recursive: true, force: true });

    const app = join(tmp, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const installed = await run(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app, file: 'npm' });
    expect(installed.code, installed.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', '@sendwell', 'client', 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@sendwell/client', types: expect.any(String), exports: expect.any(Object) });

    // The README's example, as written there, in an app of its own with strict settings.
    const readme = readFileSync(join(clientDir, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'a ts example in packages/client/README.md').toBeTruthy();
    writeFileSync(join(app, 'example.ts'), `declare const process: { env: Record<string, string | undefined> };\n${example}`);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], strict: true, noEmit: true, types: [] }, files: ['example.ts'] }),
    );
    const checked = await tsc(app);
    expect(checked.stdout + checked.stderr, 'tsc in the app').toBe('');
    expect(checked.code).toBe(0);

    // And a wrong field there fails, so the check above checks something.
    writeFileSync(join(app, 'example.ts'), `declare const process: { env: Record<string, string | undefined> };\n${example!.replace('data.data.status', 'data.data.statu')}`);
    const wrong = await tsc(app);
    expect(wrong.stdout).toMatch(/'statu' does not exist/);

    const loaded = await run(['--input-type=module', '-e', "import { createSendwellClient } from '@sendwell/client'; console.log(typeof createSendwellClient({ baseUrl: 'http://localhost/', apiKey: 'k' }).GET);"], { cwd: app });
    expect(loaded.stderr).toBe('');
    expect(loaded.stdout.trim()).toBe('function');
  });
});
