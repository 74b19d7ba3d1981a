/**
 * D17.8: the typed client in packages/client (openapi-typescript types from the served document,
 * used through openapi-fetch) drives the integration examples against a real server, type-checks
 * under `tsc --strict` (and fails on a wrong field), and `client:check` fails when it is stale.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSendwellClient } from '../../packages/client/src/index.ts';
import { integrationExamples } from '../../packages/client/examples/integration.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { FAST_SENDING, sendable, tenant } from '../sending/send-helpers.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const clientDir = join(root, 'packages', 'client');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}
const tsc = (project: string) => run([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project]);

let server: TestServer;
let sink: SmtpSink;
let tmp: string;
beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  tmp = mkdtempSync(join(tmpdir(), 'sendwell-client-'));
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the typed client (D17.8)', () => {
  it('drives the integration examples against a real server: list, contact create and read, bulk import, event, campaign stats', async () => {
    // A campaign sent to one contact, for the stats example (D14: stats exist once it is SENT).
    const t = await tenant(server);
    server.deps.dispatcher.start();
    const launchList = await t.list('Launch list');
    await t.contact({ email: 'first@example.com', list_id: launchList });
    const campaignId = (await t.campaign(sendable([launchList]))).id;
    await t.send(campaignId);
    await t.waitForStatus(campaignId, 'SENT');
    const client = createSendwellClient({ baseUrl: server.url, apiKey: t.key });

    const { list, contact, bulk, event, stats } = await integrationExamples(client, campaignId);
    expect(list).toMatchObject({ name: 'Newsletter', description: 'Monthly news', contact_count: 0 });
    expect(contact).toMatchObject({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', tags: ['vip'], custom_fields: { plan: 'pro' }, list_ids: [list.id] });
    expect(bulk).toMatchObject({ success: true, created: 2, failed: 1, errors: [{ index: 2, email: 'not an address' }] });
    expect(event).toEqual({ success: true, id: expect.any(Number) });
    expect(stats).toMatchObject({ success: true, sent: 1, delivered: 1, openRate: 0 });

    // The rows are really there: read back through the client.
    const members = await client.GET('/api/v1/lists/{id}/contacts', { params: { path: { id: list.id } } });
    expect(members.data!.data.contacts.map((c) => c.email).sort()).toEqual(['ada@example.com', 'alan@example.com', 'grace@example.com']);
    // Errors arrive typed as D7's body.
    const missing = await client.GET('/api/v1/contacts/{email}', { params: { path: { email: 'nobody@example.com' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('CONTACT_NOT_FOUND');
  });

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
});
