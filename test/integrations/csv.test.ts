import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

// `sendwell import` and `sendwell export` as child processes against the test server's data.



let server: TestServer;
let t: Tenant;
let dir: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(async () => {
  server = await startTestServer();
  t = await tenant(server);
  dir = mkdtempSync(join(tmpdir(), 'sendwell-csv-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sendwell --help', () => {
  it('lists import and export with their options', { timeout: CLI_TIMEOUT }, async () => {
    const res = await sendwell(['--help'], server.env);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('sendwell import <file> --account <id> [--list <id>] [--update]');
    expect(res.stdout).toContain('sendwell export --account <id> [--list <id>]');
  });
});

describe('sendwell import', () => {
  it('imports rows, maps columns, reports malformed lines by number and goes on', { timeout: CLI_TIMEOUT }, async () => {
    const listId = await t.list('csv list');
    const csv = [
      'Email,First_Name,last_name,phone,tags,plan,seats,zip',
      'ann@csv.test,Ann,Smith,+1 555,vip;beta,gold,3,01234',
      'bad-email,Bad,Row,,,,,', // line 3: invalid e-mail
      'bob@csv.test,Bob,"Jones, Jr.",,"a,b",,,', // quoted comma, tags split on ,
      'short@csv.test,Only,Three', // line 5: wrong column count
      'carl@csv.test,"Carl ""The Car""",Lane,,,silver,,', // escaped quotes
      'dora@csv.test,"Dora,Unclosed,,,,,,', // line 7: a quote never closed
      'eve@csv.test,Eve,"Multi',
      'Line",,,,,', // lines 8-9: one record with a line break inside quotes
      '',
      'ann@csv.test,Ann,Again,,,,,', // line 11: already imported: skipped
      'fay@csv.test,Fay,Last,,,,,', // after the bad lines, still imported
    ].join('\n');
    const res = await sendwell(['import', file('people.csv', csv), '--account', String(t.accountId), '--list', String(listId)], server.env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    const summary = JSON.parse(res.stdout);
    expect(summary).toMatchObject({ created: 5, updated: 0, skipped: 1, failed: 3, errors_not_listed: 0 });
    expect(summary.errors.map((e: any) => e.line)).toEqual([3, 5, 7]);
    expect(summary.errors[0]).toMatchObject({ email: 'bad-email', message: expect.stringMatching(/e-mail/) });
    expect(summary.errors[1].message).toMatch(/columns/);
    expect(summary.errors[2].message).toMatch(/quote/);

    expect(await t.getContact('ann@csv.test')).toMatchObject({ first_name: 'Ann', last_name: 'Smith', phone: '+1 555', tags: ['vip', 'beta'], custom_fields: { plan: 'gold', seats: 3, zip: '01234' }, list_ids: [listId] });
    expect(await t.getContact('bob@csv.test')).toMatchObject({ last_name: 'Jones, Jr.', tags: ['a', 'b'] });
    expect((await t.getContact('carl@csv.test')).first_name).toBe('Carl "The Car"');
    expect((await t.getContact('eve@csv.test')).last_name).toBe('Multi\nLine');
    expect((await t.getContact('fay@csv.test')).list_ids).toEqual([listId]);
  });

  it('--update updates existing contacts; without it they are skipped', { timeout: CLI_TIMEOUT }, async () => {
    await t.contact({ email: 'upd@csv.test', first_name: 'Old', custom_fields: { keep: 'yes' } });
    const path = file('upd.csv', 'email,first_name,plan\nupd@csv.test,New,gold\n');
    const skipped = JSON.parse((await sendwell(['import', path, '--account', String(t.accountId)], server.env)).stdout);
    expect(skipped).toMatchObject({ created: 0, updated: 0, skipped: 1 });
    const updated = JSON.parse((await sendwell(['import', path, '--account', String(t.accountId), '--update'], server.env)).stdout);
    expect(updated).toMatchObject({ created: 0, updated: 1, skipped: 0 });
    expect(await t.getContact('upd@csv.test')).toMatchObject({ first_name: 'New', custom_fields: { keep: 'yes', plan: 'gold' } });
  });

  it("D26.3: a Mailchimp export loses no column without saying so, and OPTIN_TIME or a later CONFIRM_TIME dates the consent", { timeout: CLI_TIMEOUT }, async () => {
    const listId = await t.list('mailchimp cli');
    const csv = [
      'Email Address,First Name,Company Name,Date of Birth,,OPTIN_TIME,CONFIRM_TIME,Company Name',
      'ann@mc-cli.test,Ann,Acme Ltd,1990-04-01,x,2024-03-01 10:22:33,2024-03-02 08:15:00,Other Co',
      'bo@mc-cli.test,Bo,Bolt Inc,,y,2024-03-05 09:00:00,,',
    ].join('\n');
    const res = await sendwell(['import', file('mailchimp.csv', csv), '--account', String(t.accountId), '--list', String(listId)], server.env);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      created: 2,
      updated: 0,
      skipped: 0,
      failed: 0,
      errors: [],
      errors_not_listed: 0,
      ignored_columns: [
        { column: '', reason: 'column 5 has no header' },
        { column: 'Company Name', reason: 'a duplicate header: the first, column 3, is kept' },
      ],
    });
    const ann = await t.getContact('ann@mc-cli.test');
    expect(ann.custom_fields).toEqual({ company_name: 'Acme Ltd', date_of_birth: '1990-04-01' });
    expect((await t.getContact('bo@mc-cli.test')).custom_fields).toEqual({ company_name: 'Bolt Inc' });
    const consents = async (email: string) => (await t.call('GET', `/api/v1/contacts/${email}/consents`)).body.data.consents;
    expect(await consents('ann@mc-cli.test')).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [listId], at: '2024-03-02T08:15:00' })]);
    expect(await consents('bo@mc-cli.test')).toEqual([expect.objectContaining({ source: 'IMPORT', list_ids: [listId], at: '2024-03-05T09:00:00' })]);
  });

  it('fails cleanly for a missing file, account or list, and a header without email', { timeout: CLI_TIMEOUT }, async () => {
    const ok = file('ok.csv', 'email\nx@csv.test\n');
    for (const args of [
      ['import', join(dir, 'missing.csv'), '--account', String(t.accountId)],
      ['import', ok, '--account', '999999'],
      ['import', ok, '--account', String(t.accountId), '--list', '999999'],
      ['import', file('noemail.csv', 'name\nx\n'), '--account', String(t.accountId)],
    ]) {
      const res = await sendwell(args, server.env);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});

describe('sendwell export', () => {
  it('streams contacts as CSV that imports back into another account unchanged', { timeout: CLI_TIMEOUT }, async () => {
    const source = await tenant(server);
    const listId = await source.list('export list');
    await source.contact({ email: 'x1@export.test', first_name: 'X', last_name: 'One, "quoted"', tags: ['a', 'b'], custom_fields: { plan: 'gold', seats: 2 }, list_id: listId });
    await source.contact({ email: 'x2@export.test', phone: '+44 20', custom_fields: { zip: '01234' } });
    await source.contact({ email: 'x3@export.test', first_name: 'Line\nBreak', list_id: listId });

    const all = await sendwell(['export', '--account', String(source.accountId)], server.env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.split('\n')[0]).toBe('email,first_name,last_name,phone,status,tags,lists,plan,seats,zip');
    const onlyList = await sendwell(['export', '--account', String(source.accountId), '--list', String(listId)], server.env);
    expect(onlyList.stdout).toContain('x1@export.test');
    expect(onlyList.stdout).not.toContain('x2@export.test');

    const target = await tenant(server);
    const imported = await sendwell(['import', file('roundtrip.csv', all.stdout), '--account', String(target.accountId)], server.env);
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 3, failed: 0 });
    const strip = (c: Record<string, any>) => ({ email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone, tags: c.tags, custom_fields: c.custom_fields });
    for (const email of ['x1@export.test', 'x2@export.test', 'x3@export.test']) {
      expect(strip(await target.getContact(email))).toEqual(strip(await source.getContact(email)));
    }
  });
});
