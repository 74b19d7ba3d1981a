/**
 * Issue 34 item 12 in Chromium: the builder sets a form's button words and colour, a consent
 * checkbox and the page to send people to after they confirm by mail (at 1280 and 390 px); the
 * hosted page and the embed snippet on another origin both show them; the thank-you page links
 * back to where the visitor came from without sending them there; and the confirm button of the
 * double opt-in mail's page leads to the form's page, which the page's policy lets it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
const backgroundOf = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).evaluate((b) => getComputedStyle(b).backgroundColor);

describe.skipIf(!haveChromium)('issue 34: form options in the browser', () => {
  const d = withDashboard();
  let shopPage = '<!doctype html><title>Shop</title>';
  const shop: Server = createServer((req, res) => {
    const body = req.url?.startsWith('/welcome') ? '<!doctype html><title>Welcome</title><h1>Welcome to the shop</h1>' : req.url?.startsWith('/blog') ? '<!doctype html><title>Blog</title><h1>The shop blog</h1>' : shopPage;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  let shopUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    shop.closeAllConnections();
    await new Promise<void>((resolve) => shop.close(() => resolve()));
  });

  it('the builder sets them; the hosted page shows them, a consent unticked is refused, the thank-you page links back, and confirming leads to the form page', { timeout: 180_000 }, async () => {
    const { page, problems } = d.browser;
    const { call } = await signUpWithApi(d);
    const list = await call('POST', '/api/v1/lists', { name: 'Shop news', is_public: true, opt_in: 'double' });

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(d.server.url + '/forms/new');
    await page.getByRole('textbox', { name: /^Form name/ }).fill('Shop news sign-up');
    await choose(page, 'Lists', 'Shop news (double opt-in)');
    await page.keyboard.press('Escape');
    const options = page.getByLabel('Button and consent', { exact: true });
    await options.getByRole('textbox', { name: /^Button text/ }).fill('Join the club');
    await options.getByRole('textbox', { name: /^Button colour/ }).fill('#0b7285');
    await options.getByRole('switch', { name: /Ask for consent/ }).check();
    await options.getByRole('textbox', { name: /^Consent text/ }).fill('Yes, send me the shop news. <I can leave at any time.>');
    await page.getByRole('textbox', { name: /^After confirming by e-mail, send to/ }).fill(`${shopUrl}/welcome`);
    await page.getByRole('button', { name: 'Save form' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Form created.' }).isVisible()).toBe(true);
    const [form] = (await call('GET', '/api/v1/forms')).forms;
    expect(form).toMatchObject({ button_text: 'Join the club', button_color: '#0b7285', consent_text: 'Yes, send me the shop news. <I can leave at any time.>', confirm_redirect_url: `${shopUrl}/welcome` });
    // Saved and shown again as saved.
    expect(await options.getByRole('textbox', { name: /^Button text/ }).inputValue()).toBe('Join the club');
    expect(await options.getByRole('switch', { name: /Ask for consent/ }).isChecked()).toBe(true);
    await screenshot(page, 'form-options-desktop', { fullPage: true });
    // A colour that is not one is not kept: the picker goes back to the last one (the API refuses it too).
    await options.getByRole('textbox', { name: /^Button colour/ }).fill('teal');
    await page.keyboard.press('Tab');
    await expect.poll(() => options.getByRole('textbox', { name: /^Button colour/ }).inputValue()).toBe('#0b7285');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await options.scrollIntoViewIfNeeded();
    await screenshot(page, 'form-options-phone', { fullPage: true });

    // The hosted page, reached from the shop's blog (return_to), at phone width.
    await page.goto(`${d.server.url}/f/${form.uid}?return_to=${encodeURIComponent(`${shopUrl}/blog/post-1`)}`);
    expect(await backgroundOf(page, 'Join the club')).toBe('rgb(11, 114, 133)');
    expect(await page.getByRole('checkbox', { name: 'Yes, send me the shop news. <I can leave at any time.>' }).isVisible()).toBe(true);
    expect(await fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'form-options-hosted-phone', { fullPage: true });
    await page.getByLabel('E-mail').fill('shopper@example.com');
    await page.evaluate(() => ((document.querySelector('form') as HTMLFormElement).noValidate = true));
    await page.getByRole('button', { name: 'Join the club' }).click();
    await expect.poll(() => page.getByText('Please tick the box').isVisible()).toBe(true);
    // Refused: no contact was made (the API answers 404, so no data).
    expect(await call('GET', '/api/v1/contacts/shopper@example.com')).toBeUndefined();
    await page.getByRole('checkbox', { name: /Yes, send me the shop news/ }).check();
    await page.getByRole('button', { name: 'Join the club' }).click();
    await expect.poll(() => page.getByText('Please check your inbox').isVisible()).toBe(true);
    const back = page.getByRole('link', { name: /Back to 127\.0\.0\.1/ });
    expect(await back.getAttribute('href')).toBe(`${shopUrl}/blog/post-1`);
    // Shown, not followed: the person is still on the thank-you page.
    expect(page.url()).toBe(`${d.server.url}/f/${form.uid}`);
    await screenshot(page, 'form-options-thanks-phone');
    await back.click();
    await expect.poll(() => page.getByRole('heading', { name: 'The shop blog' }).isVisible()).toBe(true);
    const [consent] = (await call('GET', '/api/v1/contacts/shopper@example.com/consents')).consents;
    expect(consent).toMatchObject({ source: 'FORM', form_id: form.id, statement: 'Yes, send me the shop news. <I can leave at any time.>' });

    // The confirmation mail's page: its button leads to the form's page once confirmed.
    const contact = await call('GET', '/api/v1/contacts/shopper@example.com');
    await page.goto(`${d.server.url}/c/${d.server.core.signer.sign({ kind: 'confirm', contactId: contact.id })}`);
    await page.getByRole('button', { name: 'Confirm my subscription' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Welcome to the shop' }).isVisible()).toBe(true);
    expect(page.url()).toBe(`${shopUrl}/welcome`);
    expect((await call('GET', '/api/v1/contacts/shopper@example.com')).memberships).toEqual([{ list_id: list.id, status: 'SUBSCRIBED' }]);
    expect(problems).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the embed snippet on another origin carries the button and the consent checkbox; its thank-you page links back to that site', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { key } = await d.server.createAccountWithKey();
    const call = async (method: string, path: string, body?: unknown) => (await d.server.request(method, path, { key, body })).body.data;
    const list = await call('POST', '/api/v1/lists', { name: 'Embed news', is_public: true });
    const form = await call('POST', '/api/v1/forms', {
      name: 'Embedded',
      list_ids: [list.id],
      fields: [{ name: 'email', label: 'Your e-mail' }],
      button_text: 'Count me in',
      button_color: '#ffd43b',
      consent_text: 'I agree to the embedded news.',
    });
    shopPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title></head><body><h1>Acme shop</h1>${form.embed_html.replace('http://localhost:3000', d.server.url).replace(/https?:\/\/[^"]*\/f\//, `${d.server.url}/f/`)}</body></html>`;
    await page.goto(shopUrl + '/');
    expect(await backgroundOf(page, 'Count me in')).toBe('rgb(255, 212, 59)');
    expect(await page.getByRole('button', { name: 'Count me in' }).evaluate((b) => getComputedStyle(b).color)).toBe('rgb(0, 0, 0)');
    await page.getByLabel('Your e-mail').fill('embedded@example.com');
    await page.getByRole('checkbox', { name: 'I agree to the embedded news.' }).check();
    await page.getByRole('button', { name: 'Count me in' }).click();
    await expect.poll(() => page.getByText('Thank you for subscribing!').isVisible()).toBe(true);
    // A cross-origin post's Referer is the site's origin: the way back leads there.
    expect(await page.getByRole('link', { name: /Back to 127\.0\.0\.1/ }).getAttribute('href')).toBe(`${shopUrl}/`);
    expect((await call('GET', '/api/v1/contacts/embedded@example.com/consents')).consents[0].statement).toBe('I agree to the embedded news.');
  });
});

