/**
 * D17.6 with the CLI as a child process: export then import loses nothing (status, tags, list
 * names, custom fields with their JSON types), never makes anyone SUBSCRIBED again, reads other
 * tools' headers, and `--map` names the rest.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let dir: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const listNames = async (t: Tenant, email: string) => {
  const contact = await t.getContact(email);
  const lists = (await t.call('GET', '/api/v1/lists?size=100')).body.data.lists as { id: number; name: string }[];
  return lists.filter((l) => contact.list_ids.includes(l.id)).map((l) => l.name).sort();
};

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'sendwell-roundtrip-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('D17.6: export then import into another account', { timeout: CLI_TIMEOUT }, () => {
  it('keeps status, tags, list names and typed custom fields; an unsubscribed contact stays unsubscribed', async () => {
    const source = await tenant(server);
    const news = await source.list('News');
    const promo = await source.list('Promo');
    await source.contact({ email: 'gone@rt.test', first_name: 'Gone', tags: ['a', 'b'], custom_fields: { vip: true, seats: 2, code: '12', note: 'true' }, list_id: news });
    await source.addToList(promo, ['gone@rt.test']);
    await source.call('PUT', '/api/v1/contacts/gone%40rt.test', { status: 'UNSUBSCRIBED' });
    await source.contact({ email: 'here@rt.test', first_name: 'Here', custom_fields: { vip: false } });

    const exported = await sendwell(['export', '--account', String(source.accountId)], server.env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout.split('\n')[0]).toBe('email,first_name,last_name,phone,status,tags,lists,code,note,seats,vip');
    expect(exported.stdout).toContain('gone@rt.test,Gone,,,UNSUBSCRIBED,a;b,News;Promo,"""12""","""true""",2,true');

    const target = await tenant(server);
    // The target already has one of them, SUBSCRIBED: the file's opt-out holds there too.
    await target.contact({ email: 'gone@rt.test', first_name: 'Old' });
    const imported = await sendwell(['import', file('export.csv', exported.stdout), '--account', String(target.accountId)], server.env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 1, skipped: 1, failed: 0 });

    const gone = await target.getContact('gone@rt.test');
    expect(gone.status).toBe('UNSUBSCRIBED');
    expect(await listNames(target, 'gone@rt.test')).toEqual(['News', 'Promo']);
    const here = await target.getContact('here@rt.test');
    expect(here).toMatchObject({ status: 'SUBSCRIBED', custom_fields: { vip: false } });

    // With --update the fields come over too, typed as they were.
    const updated = await sendwell(['import', file('export2.csv', exported.stdout), '--account', String(target.accountId), '--update'], server.env);
    expect(JSON.parse(updated.stdout)).toMatchObject({ updated: 2, failed: 0 });
    expect(await target.getContact('gone@rt.test')).toMatchObject({ first_name: 'Gone', tags: ['a', 'b'], custom_fields: { vip: true, seats: 2, code: '12', note: 'true' }, status: 'UNSUBSCRIBED' });
  });

  it('keeps a custom field named like a contact field (status, mobile, id), and tags and list names holding a separator', async () => {
    const source = await tenant(server);
    const weekly = await source.list('News, weekly');
    await source.contact({ email: 'named@rt.test', tags: ['Paris, France', 'a;b', 'plain'], custom_fields: { status: 'gold', mobile: 5, id: 'A-7' }, list_id: weekly });
    const exported = await sendwell(['export', '--account', String(source.accountId)], server.env);
    expect(exported.code, exported.stderr).toBe(0);
    const header = exported.stdout.split('\n')[0].split(',');
    expect(header.slice(0, 7)).toEqual(['email', 'first_name', 'last_name', 'phone', 'status', 'tags', 'lists']);
    expect(header.slice(7).sort()).toEqual(['custom_fields.id', 'custom_fields.mobile', 'custom_fields.status']);

    const target = await tenant(server);
    const imported = await sendwell(['import', file('named.csv', exported.stdout), '--account', String(target.accountId)], server.env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 1, failed: 0 });
    expect(await target.getContact('named@rt.test')).toMatchObject({ status: 'SUBSCRIBED', phone: null, tags: ['Paris, France', 'a;b', 'plain'], custom_fields: { status: 'gold', mobile: 5, id: 'A-7' } });
    expect(await listNames(target, 'named@rt.test')).toEqual(['News, weekly']);
  });

  it('never makes a contact SUBSCRIBED again, even when the file says so and --update is given', async () => {
    const t = await tenant(server);
    await t.contact({ email: 'out@rt.test' });
    await t.call('PUT', '/api/v1/contacts/out%40rt.test', { status: 'UNSUBSCRIBED' });
    const res = await sendwell(['import', file('resub.csv', 'email,status\nout@rt.test,SUBSCRIBED\n'), '--account', String(t.accountId), '--update'], server.env);
    expect(res.code, res.stderr).toBe(0);
    expect((await t.getContact('out@rt.test')).status).toBe('UNSUBSCRIBED');
  });
});

describe("D17.6: other tools' files", { timeout: CLI_TIMEOUT }, () => {
  it('reads Mailchimp-style headers, ; and , separators, creates named lists, and --map names other columns', async () => {
    const t = await tenant(server);
    const csv = ['Email Address,First Name,Last Name,Phone Number,Tags,Lists,Company', 'Ann@Example.com,Ann,Lee,+1 555 0100,"vip; early",Weekly;Customers,Acme', 'bo@example.com,Bo,,,x,Weekly,'].join('\n');
    const res = await sendwell(['import', file('mailchimp.csv', csv), '--account', String(t.accountId)], server.env);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ created: 2, failed: 0 });
    expect(await t.getContact('ann@example.com')).toMatchObject({ first_name: 'Ann', last_name: 'Lee', phone: '+1 555 0100', tags: ['vip', 'early'], custom_fields: { Company: 'Acme' } });
    expect(await listNames(t, 'ann@example.com')).toEqual(['Customers', 'Weekly']);
    expect(await listNames(t, 'bo@example.com')).toEqual(['Weekly']);

    const other = 'Correo,Nombre,Plan\ncy@example.com,Cy,gold\n';
    const mapped = await sendwell(['import', file('mapped.csv', other), '--account', String(t.accountId), '--map', 'Correo=email,Nombre=first_name,Plan=custom_fields.plan'], server.env);
    expect(mapped.code, mapped.stderr).toBe(0);
    expect(await t.getContact('cy@example.com')).toMatchObject({ first_name: 'Cy', custom_fields: { plan: 'gold' } });

    const noEmail = await sendwell(['import', file('noemail.csv', other), '--account', String(t.accountId)], server.env);
    expect(noEmail.code).toBe(1);
    expect(noEmail.stderr).toMatch(/no e-mail column/);
    const badMap = await sendwell(['import', file('mapped2.csv', other), '--account', String(t.accountId), '--map', 'Correo=mail_address'], server.env);
    expect(badMap.code).toBe(1);
    expect(badMap.stderr).toMatch(/not a contact field/);
  });
});
