/**
 * D19's suppression list: managed through the API and the CLI, filled by hard bounces and
 * complaints, and obeyed everywhere mail goes out (campaign audiences, messages already in line,
 * automation steps, test sends), whatever the contact's status. Mail goes to a real SMTP server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedbackUrl } from '../../src/feedback/auth.ts';
import { activeAutomation, allEnded, event, waitForRuns } from '../automations/helpers.ts';
import { CLI_TIMEOUT, sendwell } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, onServer, PUBLIC_URL, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
let news: number;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_MAX_ATTEMPTS: '2' });
  server.sender.automationRunner.start();
  t = await tenant(server);
  news = await t.list('News');
  for (const email of ['ann@ok.test', 'bob@ok.test', 'cat@blocked.test', 'dan@ok.test', 'eve@ok.test']) await t.contact({ email, list_id: news });
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

const add = (value: string, reason?: string) => t.call('POST', '/api/v1/suppressions', reason === undefined ? { value } : { value, reason });
const recipientsOf = async (campaignId: number) =>
  (await server.db.selectFrom('campaign_recipients').select(['email', 'status', 'last_error']).where('campaign_id', '=', campaignId).orderBy('email').execute()).map((r) => ({ ...r }));

describe('the list through the API (D19)', () => {
  it('adds an address (normalised) and a @domain, idempotently; pages newest first with search; deletes', async () => {
    const first = await add('  Zed@Example.COM ', 'asked by phone');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ message: 'Suppression added', data: { value: 'zed@example.com', reason: 'asked by phone', source: 'MANUAL' } });
    expect(first.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const again = await add('zed@example.com');
    expect(again.body).toMatchObject({ message: 'Already suppressed', data: { id: first.body.data.id, reason: 'asked by phone' } });
    const domain = await add('@Example.ORG');
    expect(domain.body.data).toMatchObject({ value: '@example.org', reason: null, source: 'MANUAL' });

    const page = await t.call('GET', '/api/v1/suppressions?size=1');
    expect(page.body.data).toMatchObject({ totalElements: 2, totalPages: 2, suppressions: [{ value: '@example.org' }] });
    const found = await t.call('GET', '/api/v1/suppressions?search=ZED');
    expect(found.body.data.suppressions.map((s: any) => s.value)).toEqual(['zed@example.com']);

    for (const id of [first.body.data.id, domain.body.data.id]) {
      expect((await t.call('DELETE', `/api/v1/suppressions/${id}`)).body).toEqual({ success: true, data: { id }, message: 'Suppression removed' });
    }
    const gone = await t.call('DELETE', `/api/v1/suppressions/${first.body.data.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('SUPPRESSION_NOT_FOUND');
  });

  it.each([
    ['not an address', 'someone'],
    ['a domain without a dot', '@localhost'],
    ['a domain with a space', '@exa mple.com'],
    ['an empty value', ''],
    ['only @', '@'],
  ])('refuses %s: 400 naming value', async (_name, value) => {
    const res = await add(value);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/^value/);
  });

  it('reads with contacts.read and writes with contacts.write', async () => {
    const reader = await server.createKey(t.accountId, ['contacts.read']);
    expect((await server.request('GET', '/api/v1/suppressions', { key: reader.key })).status).toBe(200);
    expect((await server.request('POST', '/api/v1/suppressions', { key: reader.key, body: { value: 'x@example.com' } })).status).toBe(403);
  });
});

describe('never mailed, whatever the contact status (D19)', () => {
  it('an address suppressed after the snapshot is FAILED with the reason, not sent', async () => {
    const campaign = await t.campaign(sendable([news]));
    await t.send(campaign.id); // the snapshot is taken now; this file's sender starts only below
    await add('dan@ok.test', 'asked after the send began');
    server.sender.dispatcher.start();
    await t.waitForStatus(campaign.id, 'SENT');
    const rows = await recipientsOf(campaign.id);
    expect(rows.find((r) => r.email === 'dan@ok.test')).toEqual({ email: 'dan@ok.test', status: 'FAILED', last_error: "not sent: the address is on the account's suppression list" });
    expect(rows.filter((r) => r.status === 'SENT').map((r) => r.email)).toEqual(['ann@ok.test', 'bob@ok.test', 'cat@blocked.test', 'eve@ok.test']);
    expect(sink.to('dan@ok.test')).toHaveLength(0);
  });

  it('a campaign leaves out suppressed addresses and domains, in the audience count and the snapshot', async () => {
    // dan is suppressed by the test before; ann by address and cat by domain here.
    const ann = (await add('ann@ok.test')).body.data;
    const blocked = (await add('@blocked.test')).body.data;
    expect((await t.call('GET', `/api/v1/campaigns/audience-estimate?list_ids=${news}`)).body.data.recipients).toBe(2);
    const campaign = await t.campaign(sendable([news]));
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    expect((await recipientsOf(campaign.id)).map((r) => r.email)).toEqual(['bob@ok.test', 'eve@ok.test']);
    expect(sink.to('ann@ok.test')).toHaveLength(1); // from the campaign before, none from this one
    expect(sink.to('cat@blocked.test')).toHaveLength(1); // likewise
    await t.call('DELETE', `/api/v1/suppressions/${ann.id}`);
    await t.call('DELETE', `/api/v1/suppressions/${blocked.id}`);
  });

  it('a test send to a suppressed address is 400 naming it, and sends nothing', async () => {
    const campaign = await t.campaign(sendable([news]));
    const before = sink.messages.length;
    const res = await t.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: ['qa@example.com', 'DAN@ok.test'] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/dan@ok\.test is on the account's suppression list/);
    expect(sink.messages.length).toBe(before);
  });

  it("an automation's SEND_EMAIL step skips a suppressed address", async () => {
    const id = await activeAutomation(t, {
      trigger: { type: 'EVENT', event: 'joined' },
      steps: [{ type: 'SEND_EMAIL', subject: 'Welcome', from_email: 'hello@acme.test', html: '<p>Hi</p>' }],
    });
    await event(server, t.key, { email: 'dan@ok.test', event: 'joined' });
    const [run] = await waitForRuns(t, id, allEnded(1));
    expect(run.history).toEqual([expect.objectContaining({ type: 'SEND_EMAIL', status: 'SKIPPED', detail: "not sent: the address is on the account's suppression list" })]);
    expect(sink.to('dan@ok.test')).toHaveLength(0);
  });
});

describe('filled by hard bounces and complaints (D19)', () => {
  it("a 5xx from the mail server suppresses the address; it stays out even after the contact is made SUBSCRIBED again", async () => {
    const list = await t.list('Bouncers');
    await t.contact({ email: 'gone@ok.test', list_id: list });
    await t.contact({ email: 'fine@ok.test', list_id: list });
    sink.respond(({ stage, address }) => (stage === 'rcpt' && address === 'gone@ok.test' ? { code: 550, message: '5.1.1 no such user' } : undefined));
    try {
      const campaign = await t.campaign(sendable([list]));
      await t.send(campaign.id);
      await t.waitForStatus(campaign.id, 'SENT');
    } finally {
      sink.respond(undefined);
    }
    const listed = (await t.call('GET', '/api/v1/suppressions?search=gone@ok.test')).body.data.suppressions;
    expect(listed).toEqual([expect.objectContaining({ value: 'gone@ok.test', source: 'BOUNCE', reason: expect.stringContaining('550') })]);

    expect((await t.call('PUT', '/api/v1/contacts/gone@ok.test', { status: 'SUBSCRIBED' })).body.data.status).toBe('SUBSCRIBED');
    const next = await t.campaign(sendable([list]));
    await t.send(next.id);
    await t.waitForStatus(next.id, 'SENT');
    expect((await recipientsOf(next.id)).map((r) => r.email)).toEqual(['fine@ok.test']);
  });

  it("a provider's complaint suppresses the address", async () => {
    const list = await t.list('Complainers');
    await t.contact({ email: 'angry@ok.test', list_id: list });
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const [mail] = sink.to('angry@ok.test');
    const url = feedbackUrl(PUBLIC_URL, 'test-secret', 'generic');
    const body = JSON.stringify({ events: [{ type: 'complaint', message_id: mail.messageId }] });
    const res = await fetch(onServer(server, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status, await res.text()).toBe(200);
    const listed = (await t.call('GET', '/api/v1/suppressions?search=angry')).body.data.suppressions;
    expect(listed).toEqual([expect.objectContaining({ value: 'angry@ok.test', source: 'COMPLAINT' })]);
  });
});

describe('CSV through the CLI (D19)', () => {
  it('imports values with reasons, reports bad lines, and exports what import reads back', async () => {
    const other = await tenant(server);
    const dir = mkdtempSync(join(tmpdir(), 'sendwell-suppressions-'));
    const file = join(dir, 'in.csv');
    writeFileSync(file, 'value,reason\nOne@Example.com,asked\n@spam.example,\nnot an address,\none@example.com,again\n');
    const imported = await sendwell(['suppressions', 'import', file, '--account', String(other.accountId)], server.env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ added: 2, already_listed: 1, failed: 1, errors: [{ line: 4, value: 'not an address', message: expect.stringMatching(/^value/) }] });

    const exported = await sendwell(['suppressions', 'export', '--account', String(other.accountId)], server.env);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout.trim().split('\n');
    expect(lines[0]).toBe('value,reason,source,created_at');
    // Issue 28 L3: a cell starting with @ is a formula in a spreadsheet, so it is written with a leading quote.
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(['one@example.com,asked,MANUAL', "'@spam.example,,MANUAL"]);

    // Export's output imports into another account unchanged (the quote comes off again).
    const third = await tenant(server);
    writeFileSync(file, exported.stdout);
    const again = await sendwell(['suppressions', 'import', file, '--account', String(third.accountId)], server.env);
    expect(JSON.parse(again.stdout)).toMatchObject({ added: 2, failed: 0 });
    const page = (await third.call('GET', '/api/v1/suppressions')).body.data.suppressions;
    expect(page.map((s: any) => [s.value, s.reason, s.source]).sort()).toEqual([['@spam.example', null, 'MANUAL'], ['one@example.com', 'asked', 'MANUAL']]);
  }, CLI_TIMEOUT);
});
