/**
 * D17.4: a Liquid typo saved fine, turned the campaign FAILED on send, and the campaign could then
 * be neither edited nor copied. Now templates are checked on save (400 naming the field), a FAILED
 * campaign may be edited and stays FAILED until /send resumes it, and any campaign can be
 * duplicated into a new DRAFT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { FAST_SENDING, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;
let list: number;

beforeAll(async () => {
  server = await startTestServer({ ...FAST_SENDING });
  server.sender.dispatcher.start();
  t = await tenant(server);
  list = await t.list('Readers');
  await t.contact({ email: 'reader@example.com', first_name: 'Rea', list_id: list });
});
afterAll(() => server.close());

const expect400Naming = (res: { status: number; body: any; text: string }, field: string) => {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe('INVALID_REQUEST');
  expect(res.body.error.message).toMatch(new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')} has a Liquid syntax error`));
};

describe('D17.4: Liquid errors are refused when saved', () => {
  for (const [field, source] of [
    ['subject', 'Hello {{ first_name '],
    ['preheader', '{% if vip %}VIP'],
    ['html', '<p>{% iff vip %}x{% endiff %}</p>'],
    ['text', 'Hi {{ first_name | no_such_filter }}'],
  ] as const) {
    it(`${field}: on create and on update, 400 naming the field, nothing saved`, async () => {
      const created = await t.call('POST', '/api/v1/campaigns', { name: `Broken ${field}`, [field]: source });
      expect400Naming(created, field);
      const c = await t.campaign({ name: `Fine ${field}` });
      const updated = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { [field]: source });
      expect400Naming(updated, field);
      expect((await t.getCampaign(c.id))[field]).toBeNull();
    });
  }

  it('a SEND_EMAIL step with a Liquid error is 400 naming the step field', async () => {
    const res = await t.call('POST', '/api/v1/automations', {
      name: 'Welcome',
      trigger: { type: 'EVENT', event: 'joined' },
      steps: [{ type: 'SEND_EMAIL', subject: 'Hi', from_email: 'hello@acme.test', html: '<p>{{ first_name </p>' }],
    });
    expect400Naming(res, 'steps[0].html');
    const subject = await t.call('POST', '/api/v1/automations', {
      name: 'Welcome',
      trigger: { type: 'EVENT', event: 'joined' },
      steps: [{ type: 'SEND_EMAIL', subject: '{% if %}', from_email: 'hello@acme.test', html: '<p>ok</p>' }],
    });
    expect400Naming(subject, 'steps[0].subject');
  });

  it('a draft saved before the check cannot be sent: 400 naming the field, and it stays DRAFT', async () => {
    const c = await t.campaign({ name: 'Old draft', ...sendable([list]) });
    await server.db.updateTable('campaigns').set({ html: '<p>{% if x %}never closed</p>' }).where('id', '=', c.id).execute();
    expect400Naming(await t.call('POST', `/api/v1/campaigns/${c.id}/send`), 'html');
    expect((await t.getCampaign(c.id)).status).toBe('DRAFT');
  });
});

describe('D17.4: a FAILED campaign can be fixed and resumed', () => {
  it('is edited while FAILED, stays FAILED, and /send resumes it with the new content', async () => {
    const c = await t.campaign({ name: 'Will fail', ...sendable([list]) });
    // Sending starts (the audience is snapshotted) and fails before any mail goes out, as when the
    // mail server refuses the login: the sender is paused so nothing is sent meanwhile.
    await server.sender.dispatcher.stop();
    await t.send(c.id);
    await server.db.updateTable('campaigns').set({ status: 'FAILED', error: 'the mail transport keeps failing' }).where('id', '=', c.id).execute();
    server.sender.dispatcher.start();
    const edited = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { subject: 'Fixed subject', html: '<p>Fixed for {{ first_name }}</p><a href="https://example.com/new">New</a>' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({ status: 'FAILED', subject: 'Fixed subject' });
    await t.send(c.id);
    await t.waitForStatus(c.id, 'SENT');
    const mail = await server.db.selectFrom('dev_inbox').select(['subject', 'html']).where('to_address', '=', 'reader@example.com').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(mail.subject).toBe('Fixed subject');
    expect(mail.html).toContain('Fixed for Rea');
    const stored = await server.db.selectFrom('campaigns').select('links').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.links!)).toEqual(['https://example.com/new']);
  });

  it('once it has sent mail, its wording may change but not its links (they must keep working in delivered mail)', async () => {
    const c = await t.campaign({ name: 'Half sent', ...sendable([list]) });
    await t.send(c.id);
    await t.waitForStatus(c.id, 'SENT');
    await server.db.updateTable('campaigns').set({ status: 'FAILED' }).where('id', '=', c.id).execute();
    const links = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { html: '<p>Hi</p><a href="https://example.com/other">Other</a>' });
    expect(links.status).toBe(400);
    expect(links.body.error.message).toMatch(/^html must keep the same links/);
    const wording = await t.call('PUT', `/api/v1/campaigns/${c.id}`, { subject: 'Better words' });
    expect(wording.status).toBe(200);
    expect(wording.body.data.status).toBe('FAILED');
  });
});

describe('D17.4: POST /api/v1/campaigns/{id}/duplicate', () => {
  it('copies a DRAFT, a SENT and a FAILED campaign into a new DRAFT: same content and audience, "Copy of" name, no schedule', async () => {
    const content = { ...sendable([list]), preheader: 'Short line', reply_to: 'replies@acme.test', tags: ['vip'] };
    const draft = await t.campaign({ name: 'Draft one', ...content });
    const sent = await t.campaign({ name: 'Sent one', ...content, tags: [] });
    await t.send(sent.id);
    await t.waitForStatus(sent.id, 'SENT');
    const failed = await t.campaign({ name: 'Failed one', ...content });
    await server.db.updateTable('campaigns').set({ status: 'FAILED', scheduled_at: '2030-01-01T00:00:00.000Z' }).where('id', '=', failed.id).execute();

    for (const original of [draft, sent, failed]) {
      const res = await t.call('POST', `/api/v1/campaigns/${original.id}/duplicate`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.message).toBe('Campaign duplicated');
      const copy = res.body.data;
      const source = await t.getCampaign(original.id);
      expect(copy.id).not.toBe(original.id);
      expect(copy).toMatchObject({
        name: `Copy of ${source.name}`,
        status: 'DRAFT',
        scheduled_at: null,
        sent_at: null,
        total_recipients: 0,
        error: null,
        subject: source.subject,
        preheader: source.preheader,
        html: source.html,
        text: source.text,
        from_name: source.from_name,
        from_email: source.from_email,
        reply_to: source.reply_to,
        list_ids: source.list_ids,
        tags: source.tags,
      });
    }
    // The copy of the SENT campaign sends on its own.
    const copies = (await t.call('GET', '/api/v1/campaigns?size=100')).body.data.campaigns.filter((c: { name: string }) => c.name === 'Copy of Sent one');
    await t.send(copies[0].id);
    expect((await t.waitForStatus(copies[0].id, 'SENT')).total_recipients).toBe(1);
  });

  it('keeps the name within 255 characters', async () => {
    const long = await t.campaign({ name: 'n'.repeat(255) });
    const res = await t.call('POST', `/api/v1/campaigns/${long.id}/duplicate`);
    expect(res.body.data.name).toBe(`Copy of ${'n'.repeat(247)}`);
  });

  it('404 CAMPAIGN_NOT_FOUND for a missing campaign or another account\'s; 403 without campaigns.write', async () => {
    expect((await t.call('POST', '/api/v1/campaigns/999999/duplicate')).body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    const other = await tenant(server);
    const theirs = await other.campaign({ name: 'Theirs' });
    const res = await t.call('POST', `/api/v1/campaigns/${theirs.id}/duplicate`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    const reader = await tenant(server, ['campaigns.read']);
    const own = await reader.campaign({ name: 'x' }).catch(() => null);
    expect(own).toBeNull();
    const { key } = await server.createKey(other.accountId, ['campaigns.read', 'campaigns.send']);
    const denied = await server.request('POST', `/api/v1/campaigns/${theirs.id}/duplicate`, { key });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');
  });
});

describe('issue 15: previews and test sends show real merge data, not blanks', () => {
  it("POST /campaigns/{id}/preview renders for a contact, else the lists' first member, else sample data; nothing sent, links untracked", async () => {
    const c = await t.campaign({ name: 'Preview me', ...sendable([list]), subject: 'Hi {{ first_name }}', html: '<p>Dear {{ first_name }} {{ last_name }}</p><a href="https://example.com/x">X</a>', text: null });
    const member = await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, {});
    expect(member.status, member.text).toBe(200);
    expect(member.body.data).toMatchObject({ subject: 'Hi Rea', merge_data: 'list member' });
    expect(member.body.data.html).toContain('Dear Rea');
    expect(member.body.data.text).toContain('Dear Rea');

    await t.contact({ email: 'bob@example.com', first_name: 'Bob', last_name: 'Stone' });
    const named = await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, { email: 'Bob@Example.com' });
    expect(named.body.data).toMatchObject({ subject: 'Hi Bob', merge_data: 'contact' });
    expect(named.body.data.html).toContain('Dear Bob Stone');

    const empty = await t.list('Nobody yet');
    const sample = await t.campaign({ name: 'Sample', ...sendable([empty]), subject: 'Hi {{ first_name }}' });
    const sampled = await t.call('POST', `/api/v1/campaigns/${sample.id}/preview`, {});
    expect(sampled.body.data).toMatchObject({ subject: 'Hi Ann', merge_data: 'sample' });
    // D22: an address that is no contact is named as such, not quietly replaced by sample data.
    const stranger = await t.call('POST', `/api/v1/campaigns/${sample.id}/preview`, { email: 'stranger@example.com' });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('CONTACT_NOT_FOUND');

    // Nothing was sent or stored, and the preview's links are the content's own, untracked (D22).
    expect(await server.db.selectFrom('test_sends').selectAll().where('campaign_id', '=', c.id).execute()).toEqual([]);
    expect(member.body.data.html).toContain('href="https://example.com/x"');
    expect(member.body.data.html).not.toMatch(/\/t\/c\//);
  });

  it('preview: 404 for a missing campaign, 403 without campaigns.read, 400 naming a broken template', async () => {
    expect((await t.call('POST', '/api/v1/campaigns/999999/preview', {})).body.error.code).toBe('CAMPAIGN_NOT_FOUND');
    // Parses, but reaches for a file while rendering, which the sandbox refuses.
    const broken = await t.campaign({ name: 'Includes', html: "<p>Hi</p>{% include 'header' %}" });
    const refused = await t.call('POST', `/api/v1/campaigns/${broken.id}/preview`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/cannot be rendered/);
    const other = await tenant(server);
    const { key } = await server.createKey(other.accountId, ['contacts.read']);
    const theirs = await other.campaign({ name: 'Theirs' });
    expect((await server.request('POST', `/api/v1/campaigns/${theirs.id}/preview`, { key, body: {} })).status).toBe(403);
  });

  it('a test send to an address that is no contact fills the merge fields from the first list member', async () => {
    const c = await t.campaign({ name: 'Test me', ...sendable([list]), subject: 'Hi {{ first_name }}', html: '<p>Dear {{ first_name }}</p>' });
    const res = await t.call('POST', `/api/v1/campaigns/${c.id}/test`, { emails: ['qa-person@example.com'] });
    expect(res.status, res.text).toBe(200);
    const mail = await server.db.selectFrom('dev_inbox').select(['subject', 'html']).where('to_address', '=', 'qa-person@example.com').executeTakeFirstOrThrow();
    expect(mail.subject).toBe('[Test] Hi Rea');
    expect(mail.html).toContain('Dear Rea');
  });
});

describe('issue 15: the editor previews unsaved content', () => {
  it('renders the given html and subject instead of the saved ones, and names a Liquid error in them', async () => {
    const c = await t.campaign({ name: 'Live', ...sendable([list]) });
    const live = await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, { subject: 'Typed {{ first_name }}', html: '<h1>Typing for {{ first_name }}</h1>' });
    expect(live.status, live.text).toBe(200);
    expect(live.body.data.subject).toBe('Typed Rea');
    expect(live.body.data.html).toContain('Typing for Rea');
    expect((await t.getCampaign(c.id)).subject).toBe('Hello {{ first_name }}');
    expect400Naming(await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, { html: '<p>{% if %}</p>' }), 'html');
  });
});

describe('issue 15: a preview of unsaved content after a saved one', () => {
  it('shows the new content, not the saved version the render thread compiled before', async () => {
    const c = await t.campaign({ name: 'Versions', ...sendable([list]), html: '<p>Saved version</p>' });
    expect((await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, {})).body.data.html).toContain('Saved version');
    expect((await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, { html: '<p>Typed version</p>' })).body.data.html).toContain('Typed version');
    expect((await t.call('POST', `/api/v1/campaigns/${c.id}/preview`, {})).body.data.html).toContain('Saved version');
  });
});
