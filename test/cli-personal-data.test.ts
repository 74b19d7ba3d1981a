/**
 * D21 from the command line: `sendwell contacts export-data EMAIL --account ID` prints the same
 * document as the API, `sendwell contacts erase EMAIL --account ID` erases as the API does, and a
 * CSV import of an erased address leaves it suppressed.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { tenant, type Tenant } from './sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
});
afterAll(() => server?.close());

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const account = () => ['--account', String(t.accountId)];

describe('sendwell contacts export-data and erase (D21)', { timeout: CLI_TIMEOUT }, () => {
  it('export-data prints the API\'s document; erase erases as the API does; a CSV import brings the address back suppressed', async () => {
    const list = await t.list('CLI');
    await t.contact({ email: 'cli.person@example.com', first_name: 'Cleo', list_id: list });
    const api = (await t.call('GET', '/api/v1/contacts/cli.person@example.com/export')).body.data;

    const exported = await sendwell(['contacts', 'export-data', 'CLI.Person@Example.com', ...account()], server.env);
    expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: '' });
    expect(exported.stdout.endsWith('\n')).toBe(true);
    expect(JSON.parse(exported.stdout)).toEqual(api);
    expect(api.contact).toMatchObject({ email: 'cli.person@example.com', first_name: 'Cleo', list_ids: [list] });

    const erased = await sendwell(['contacts', 'erase', 'cli.person@example.com', ...account()], server.env);
    expect({ code: erased.code, stderr: erased.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(erased.stdout)).toEqual({ email: 'cli.person@example.com', suppression: sha256('cli.person@example.com') });
    expect((await t.call('GET', '/api/v1/contacts/cli.person@example.com')).status).toBe(404);
    const entries = (await t.call('GET', '/api/v1/suppressions?search=sha256')).body.data.suppressions;
    expect(entries).toEqual([expect.objectContaining({ value: sha256('cli.person@example.com'), source: 'ERASURE' })]);

    const dir = mkdtempSync(join(tmpdir(), 'sendwell-erase-'));
    const file = join(dir, 'back.csv');
    writeFileSync(file, 'email,first_name\ncli.person@example.com,Cleo\nnew.person@example.com,Nia\n');
    const imported = await sendwell(['import', file, ...account(), '--list', String(list)], server.env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 2, failed: 0 });
    const back = (await t.call('GET', '/api/v1/suppressions?search=person@example.com')).body.data.suppressions;
    expect(back.map((s: any) => [s.value, s.source])).toEqual([['cli.person@example.com', 'ERASURE']]);
    const audience = await t.call('GET', `/api/v1/campaigns/audience-estimate?list_ids=${list}`);
    expect(audience.status, audience.text).toBe(200);
    expect(audience.body.data).toEqual({ recipients: 1 });
  });

  it('an unknown address, another account, a missing or bad --account: exit 1 with one line on stderr, nothing on stdout', async () => {
    await t.contact({ email: 'kept@example.com' });
    const cases: [string[], RegExp][] = [
      [['contacts', 'export-data', 'nobody@example.com', ...account()], /^sendwell: contact not found$/],
      [['contacts', 'erase', 'nobody@example.com', ...account()], /^sendwell: contact not found$/],
      [['contacts', 'erase', 'kept@example.com', '--account', '999999'], /^sendwell: contact not found$/],
      [['contacts', 'erase', 'kept@example.com'], /required option '--account <id>' not specified/],
      [['contacts', 'export-data', 'kept@example.com', '--account', 'x'], /--account must be a positive integer/],
    ];
    for (const [args, message] of cases) {
      const res = await sendwell(args, server.env);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stderr.trimEnd()).toMatch(message);
    }
    expect((await t.getContact('kept@example.com')).email).toBe('kept@example.com');
  });
});
