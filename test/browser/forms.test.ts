/**
 * D20's sign-up forms in a real browser: the builder in the dashboard, the hosted page at phone
 * width (a refusal shown beside its field with the values kept, a redirect to another site), and
 * the embed snippet pasted into a page served from ANOTHER origin: posted as a plain form, and as
 * a JSON fetch() from that origin (CORS).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

/** PUBLIC_URL names where people reach the service; the test server listens on a port picked at start, so links are mapped onto it. */
const PUBLIC_URL = 'https://forms.example.test';

/** Nothing pushes the page sideways: polled, as Mantine lays parts out again after a resize. */
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

/** Another website: its own origin (another port), serving whatever page the test gives it, and a thank-you page. */
function otherSite() {
  let body = '<!doctype html><title>Shop</title>';
  const server: Server = createServer((req, res) => {
    const page = req.url?.startsWith('/thanks') ? '<!doctype html><title>Thanks</title><h1>Thanks from the shop</h1>' : body;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  return {
    server,
    url: '',
    show(html: string) {
      body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title></head><body><h1>Acme shop</h1><p>Join our newsletter:</p>${html}</body></html>`;
    },
  };
}

describe.skipIf(!haveChromium)('D20: sign-up forms in the browser', () => {
  const d = withDashboard({ env: { PUBLIC_URL } });
  const shop = otherSite();
  beforeAll(async () => {
    await new Promise<void>((resolve) => shop.server.listen(0, '127.0.0.1', resolve));
    shop.url = `http://127.0.0.1:${(shop.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    // The browser may still hold kept-alive connections to it.
    shop.server.closeAllConnections();
    await new Promise<void>((resolve) => shop.server.close(() => resolve()));
  });

  /** The browser signs up once (a later sign-up waits for a confirmation mail); the dashboard tests share that account. */
  let session: ReturnType<typeof signUpWithApi> | undefined;
  const signedIn = () => (session ??= signUpWithApi(d));

  /** An account of its own, driven by the API: for the tests of the public pages, which need no dashboard session. */
  async function apiAccount() {
    const { key } = await d.server.createAccountWithKey();
    return async (method: string, path: string, body?: unknown) => {
      const res = await d.server.request(method, path, { key, body });
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
  }

  it('builds a form in the dashboard: public lists, fields in order with labels and required flags, then its embed code and hosted page', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signedIn();
    await call('POST', '/api/v1/lists', { name: 'Newsletter', is_public: true });
    await call('POST', '/api/v1/lists', { name: 'Weekly digest', is_public: true, opt_in: 'double' });
    await call('POST', '/api/v1/lists', { name: 'Staff only' });
    // A custom field the account's contacts hold is offered by name.
    await call('POST', '/api/v1/contacts', { email: 'existing@example.com', custom_fields: { company: 'Acme' } });

    await page.goto(d.server.url + '/overview');
    await page.getByRole('link', { name: 'Sign-up forms' }).click();
    await expect.poll(() => page.getByText('No sign-up forms yet.').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'New form' }).click();
    await page.getByRole('textbox', { name: /^Form name/ }).fill('Monthly news');

    // Only public lists are offered.
    await page.getByRole('combobox', { name: 'Lists' }).click();
    expect(await page.getByRole('option').allInnerTexts()).toEqual(['Newsletter', 'Weekly digest (double opt-in)']);
    await page.getByRole('option', { name: 'Newsletter', exact: true }).click();
    await page.keyboard.press('Escape');

    const fields = page.getByLabel('Fields', { exact: true });
    await choose(page, 'Add a field', 'First name');
    await choose(page, 'Add a field', 'Custom field company');
    await fields.getByRole('textbox', { name: 'Label of Custom field company' }).fill('Your company');
    await fields.getByRole('checkbox', { name: 'Custom field company required' }).check();
    await fields.getByRole('button', { name: 'Move Custom field company up' }).click();
    // A new custom field by key; the builder refuses a key the server would.
    await page.getByRole('textbox', { name: 'New custom field' }).fill('1st');
    await expect.poll(() => page.getByText('A key starts with a letter').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'New custom field' }).fill('plan');
    await page.getByRole('button', { name: 'Add custom field' }).click();
    await fields.getByRole('button', { name: 'Remove Custom field plan' }).click();
    expect(await fields.getByRole('checkbox', { name: 'E-mail required' }).isDisabled()).toBe(true);
    expect(await fields.getByRole('button', { name: 'Remove E-mail' }).isDisabled()).toBe(true);
    await page.getByRole('textbox', { name: /^Success message/ }).fill('Welcome aboard!');
    await page.getByRole('button', { name: 'Save form' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Form created.' }).isVisible()).toBe(true);

    const [form] = (await call('GET', '/api/v1/forms')).forms;
    expect(form).toMatchObject({
      name: 'Monthly news',
      list_ids: [expect.any(Number)],
      fields: [
        { name: 'email', label: 'E-mail', required: true },
        { name: 'custom_fields.company', label: 'Your company', required: true },
        { name: 'first_name', label: 'First name', required: false },
      ],
      success_message: 'Welcome aboard!',
      redirect_url: null,
    });
    expect(page.url()).toBe(`${d.server.url}/forms/${form.id}`);
    const embed = page.getByLabel('Embed code');
    expect(await embed.getByLabel('Embed HTML').innerText()).toBe(form.embed_html);
    expect(await embed.getByRole('button', { name: 'Copy embed code' }).isVisible()).toBe(true);
    expect(await embed.getByRole('link', { name: form.hosted_url }).getAttribute('href')).toBe(`${PUBLIC_URL}/f/${form.uid}`);
    await screenshot(page, 'form-builder', { fullPage: true });

    // Editing keeps the uid: only the changed field moves.
    await page.getByRole('textbox', { name: /^Redirect to/ }).fill('javascript:alert(1)');
    await page.getByRole('button', { name: 'Save form' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'redirect_url must be an http' }).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^Redirect to/ }).fill('');
    await page.getByRole('textbox', { name: /^Form name/ }).fill('Monthly news (footer)');
    await page.getByRole('button', { name: 'Save form' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Form saved.' }).isVisible()).toBe(true);
    expect((await call('GET', `/api/v1/forms/${form.id}`)).uid).toBe(form.uid);

    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'phone-form-builder', { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.getByRole('link', { name: '← Sign-up forms' }).click();
    const table = page.getByRole('table', { name: 'Sign-up forms' });
    await expect.poll(() => table.getByRole('link', { name: 'Monthly news (footer)' }).isVisible()).toBe(true);
    // The lists' names come from their own request, which may answer after the forms'.
    await expect.poll(() => table.getByText('Newsletter').isVisible()).toBe(true);
    await screenshot(page, 'forms');
    await table.getByRole('button', { name: 'Delete Monthly news (footer)' }).click();
    await page.getByRole('button', { name: 'Delete form' }).click();
    await expect.poll(() => page.getByText('No sign-up forms yet.').isVisible()).toBe(true);
    expect((await d.server.request('GET', `/f/${form.uid}`)).status).toBe(404);
  });

  it('the hosted page at phone width: a refusal beside its field with the values kept, then a sign-up; a redirect to another site is followed', { timeout: 120_000 }, async () => {
    const { page, requested, problems } = d.browser;
    const call = await apiAccount();
    const list = await call('POST', '/api/v1/lists', { name: 'Readers', is_public: true });
    const form = await call('POST', '/api/v1/forms', {
      name: 'Join the readers',
      list_ids: [list.id],
      fields: [
        { name: 'email', label: 'E-mail' },
        { name: 'first_name', label: 'First name', required: true },
      ],
      success_message: 'You are in. Thank you!',
    });
    const hosted = `${d.server.url}/f/${form.uid}`;
    await page.setViewportSize({ width: 360, height: 740 });
    requested.length = 0;
    await page.goto(hosted);
    expect(await page.getByRole('heading', { name: 'Join the readers' }).isVisible()).toBe(true);
    expect(await fitsTheScreen(page)).toBe(true);
    // Inputs span the card at phone width, large enough to tap.
    const input = await page.getByLabel('E-mail').boundingBox();
    expect(input!.width).toBeGreaterThan(260);
    expect(input!.height).toBeGreaterThanOrEqual(40);
    await screenshot(page, 'form-hosted-phone');

    // The browser's own checks set aside, the server's refusal shows beside the field.
    await page.getByLabel('E-mail').fill('ada@localhost');
    await page.getByLabel('First name').fill('Ada <Lovelace>');
    await page.evaluate(() => ((document.querySelector('form') as HTMLFormElement).noValidate = true));
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await expect.poll(() => page.getByText('E-mail is not a valid e-mail address').isVisible()).toBe(true);
    expect(await page.getByLabel('E-mail').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('E-mail').inputValue()).toBe('ada@localhost');
    expect(await page.getByLabel('First name').inputValue()).toBe('Ada <Lovelace>');
    await screenshot(page, 'form-hosted-refused');

    await page.getByLabel('E-mail').fill('ada@example.com');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await expect.poll(() => page.getByText('You are in. Thank you!').isVisible()).toBe(true);
    const contact = await call('GET', '/api/v1/contacts/ada@example.com');
    expect(contact).toMatchObject({ first_name: 'Ada <Lovelace>', list_ids: [list.id] });
    // The page loaded nothing from elsewhere, ran nothing, and its policy held.
    expect(requested.filter((u) => !u.startsWith(`${d.server.url}/f/`))).toEqual([]);
    expect(problems).toEqual([]);

    // A form that redirects to another site: the hosted page's policy lets the form's answer lead there.
    await call('PUT', `/api/v1/forms/${form.id}`, { redirect_url: `${shop.url}/thanks?from=form` });
    await page.goto(hosted);
    await page.getByLabel('E-mail').fill('grace@example.com');
    await page.getByLabel('First name').fill('Grace');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Thanks from the shop' }).isVisible()).toBe(true);
    expect(page.url()).toBe(`${shop.url}/thanks?from=form`);
    expect(problems).toEqual([]);
    expect((await call('GET', '/api/v1/contacts/grace@example.com')).list_ids).toEqual([list.id]);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('the embed snippet on another origin: posted as a plain form, and by a JSON fetch() from that origin (CORS)', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const call = await apiAccount();
    const list = await call('POST', '/api/v1/lists', { name: 'Shop news', is_public: true });
    const form = await call('POST', '/api/v1/forms', {
      name: 'Shop newsletter',
      list_ids: [list.id],
      fields: [
        { name: 'email', label: 'Your e-mail' },
        { name: 'first_name', label: 'First name' },
        { name: 'custom_fields.company', label: 'Company' },
      ],
      success_message: 'Thanks for joining the shop news!',
    });
    expect(form.embed_html).toContain(`action="${PUBLIC_URL}/f/${form.uid}"`);
    shop.show(form.embed_html.replace(PUBLIC_URL, d.server.url));
    expect(shop.url).not.toBe(d.server.url);

    await page.goto(shop.url + '/');
    await page.getByLabel('Your e-mail').fill('shopper@example.com');
    await page.getByLabel('First name').fill('Sam');
    await page.getByLabel('Company').fill('Sam & Sons');
    // The honeypot is there, hidden: a person never sees or fills it.
    expect(await page.locator('input[name="website"]').isHidden()).toBe(true);
    await screenshot(page, 'form-embedded');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await expect.poll(() => page.getByText('Thanks for joining the shop news!').isVisible()).toBe(true);
    expect(page.url()).toBe(`${d.server.url}/f/${form.uid}`);
    expect(await call('GET', '/api/v1/contacts/shopper@example.com')).toMatchObject({ first_name: 'Sam', custom_fields: { company: 'Sam & Sons' }, list_ids: [list.id], status: 'SUBSCRIBED' });
    const [consent] = (await call('GET', '/api/v1/contacts/shopper@example.com/consents')).consents;
    expect(consent).toMatchObject({ source: 'FORM', form_id: form.id, list_ids: [list.id], ip: '127.0.0.1', user_agent: expect.stringContaining('Chrome') });

    // A script on the shop's page posts JSON (a preflighted request) and reads the answer.
    await page.goto(shop.url + '/');
    const answer = await page.evaluate(async (url) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ email: 'scripted@example.com', 'custom_fields.company': 'Script Co' }) });
      return { status: res.status, body: await res.json() };
    }, `${d.server.url}/f/${form.uid}`);
    expect(answer).toEqual({ status: 200, body: { success: true, data: { redirect_url: null }, message: 'Thanks for joining the shop news!' } });
    // Its refusals are readable there too.
    const refused = await page.evaluate(async (url) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'x', 'custom_fields.vip': 'yes' }) });
      return { status: res.status, body: await res.json() };
    }, `${d.server.url}/f/${form.uid}`);
    expect(refused.status).toBe(400);
    expect(refused.body.fields).toEqual({ email: 'is not a valid e-mail address', 'custom_fields.vip': 'is not a field of this form' });
    expect(await call('GET', '/api/v1/contacts/scripted@example.com')).toMatchObject({ custom_fields: { company: 'Script Co' }, list_ids: [list.id] });
  });

  it('D26.1: deleting a list a form uses is said to be refused before it is tried, in the dialog, and the list stays', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signedIn();
    const used = await call('POST', '/api/v1/lists', { name: 'Footer readers', is_public: true });
    await call('POST', '/api/v1/lists', { name: 'Spare list' });
    await call('POST', '/api/v1/forms', { name: 'Shop footer', list_ids: [used.id], fields: [{ name: 'email', label: 'E-mail', required: true }] });

    await page.goto(d.server.url + '/lists');
    await page.getByRole('button', { name: 'Delete Footer readers' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByRole('status').filter({ hasText: 'This list is in use' }).isVisible()).toBe(true);
    expect(await dialog.getByRole('status').innerText()).toContain('Used by form "Shop footer"');
    await screenshot(page, 'list-delete-in-use');
    // Tried all the same: the API's refusal shows, and the list stays.
    await dialog.getByRole('button', { name: 'Delete list' }).click();
    await expect.poll(() => dialog.getByText(/cannot be deleted while form "Shop footer" uses it/).isVisible()).toBe(true);
    expect((await call('GET', `/api/v1/lists/${used.id}`)).name).toBe('Footer readers');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // A list nothing uses says only what deleting does.
    await page.getByRole('button', { name: 'Delete Spare list' }).click();
    await expect.poll(() => page.getByRole('dialog').getByText('Its memberships are removed; the contacts stay.').isVisible()).toBe(true);
  });
});
