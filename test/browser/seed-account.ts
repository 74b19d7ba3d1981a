/**
 * Issue 34: one account with something on every page (a list, contacts, a segment, a form, a
 * template, a sent campaign with an open, an MJML draft, an automation, a webhook, a domain, a
 * suppression, a transactional message, an invitation), made through the API with a `*` key, so a
 * page under test is never just its empty state.
 */
import { expect } from 'vitest';
import { sendable } from '../sending/send-helpers.ts';
import type { TestServer } from '../helpers/server.ts';

type Call = (method: string, path: string, body?: unknown) => Promise<any>;

export interface Seeded {
  contact: string;
  list: number;
  segment: number;
  form: number;
  template: number;
  sentCampaign: number;
  mjmlDraft: number;
  automation: number;
}

/** A browser's user agent, so an open counts as a person's (D23). */
export const BROWSER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** PUBLIC_URL names no real port in tests: the same path on the test server. */
export const onServer = (server: TestServer, url: string) => {
  const u = new URL(url.replace(/&amp;/g, '&'));
  return server.url + u.pathname + u.search;
};

/** Needs the sender's dispatcher running on `server` (withDashboard's `start`). */
export async function seedAccount(server: TestServer, accountId: number): Promise<Seeded> {
  // Enough requests a minute for the seeding (a sign-up's account is on the Free plan).
  await server.db.updateTable('accounts').set({ plan: 'enterprise' }).where('id', '=', accountId).execute();
  const { key } = await server.createKey(accountId, ['*']);
  const call: Call = async (method, path, body) => {
    const res = await server.request(method, path, { key, body });
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
    return res.body.data;
  };
  const list = await call('POST', '/api/v1/lists', { name: 'Newsletter readers', is_public: true });
  const contact = 'ada.lovelace@example.com';
  await call('POST', '/api/v1/contacts', { email: contact, first_name: 'Ada', last_name: 'Lovelace', list_id: list.id });
  await call('POST', '/api/v1/contacts', { email: 'grace.hopper-with-a-long-address@example.com', first_name: 'Grace', last_name: 'Hopper', list_id: list.id });
  const segment = await call('POST', '/api/v1/segments', { name: 'Example readers', filter: { field: 'email', op: 'ends_with', value: '@example.com' } });
  const form = await call('POST', '/api/v1/forms', { name: 'Footer form', list_ids: [list.id], fields: [{ name: 'email', label: 'E-mail', required: true }] });
  const template = await call('POST', '/api/v1/templates', { name: 'Monthly letter', kind: 'starter', format: 'html', body: '<p>Hi {{ first_name | default: "there" }},</p><p>News.</p>' });
  const campaign = await call('POST', '/api/v1/campaigns', { name: 'Autumn letter', ...sendable([list.id]) });
  await call('POST', `/api/v1/campaigns/${campaign.id}/send`);
  await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).status, { timeout: 30_000, interval: 1_000 }).toBe('SENT');
  // An open by a person, so the report has a chart (one hour of data).
  const mail = await server.db.selectFrom('dev_inbox').select('html').where('to_address', '=', contact).executeTakeFirstOrThrow();
  const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(mail.html!)![1];
  expect((await fetch(onServer(server, pixel), { headers: { 'user-agent': BROWSER_AGENT } })).status).toBe(200);
  // An MJML design that names no font: MJML's default (Ubuntu) must not pull Google Fonts.
  const mjmlDraft = await call('POST', '/api/v1/campaigns', {
    name: 'Winter draft',
    ...sendable([list.id], { format: 'mjml', html: '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{ first_name }}</mj-text><mj-button href="https://example.com/">Read</mj-button></mj-column></mj-section></mj-body></mjml>' }),
  });
  const automation = await call('POST', '/api/v1/automations', { name: 'Welcome series', trigger: { type: 'TAG_ADDED', tag: 'welcome' }, steps: [{ type: 'ADD_TAG', tag: 'seen' }] });
  await call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/sendwell', event_types: ['email.sent'] });
  await call('POST', '/api/v1/domains', { domain: 'mail.example.net' });
  await call('POST', '/api/v1/suppressions', { value: 'blocked@example.net' });
  await call('POST', '/api/v1/messages', { to: 'receipt@example.com', from_email: 'app@example.com', subject: 'Your receipt', text: 'Thanks' });
  await call('POST', '/api/v1/invitations', { email: 'new.colleague@example.com', role: 'viewer' });
  return { contact, list: list.id, segment: segment.id, form: form.id, template: template.id, sentCampaign: campaign.id, mjmlDraft: mjmlDraft.id, automation: automation.id };
}
