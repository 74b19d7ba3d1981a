/**
 * Issue 34 item 5 in a real browser: changing the Format of written content asks first, saying
 * what the change does to it; from MJML to HTML it offers to convert the content to the HTML the
 * server compiles it to (POST /templates/compile: merge tags kept), instead of leaving MJML tags
 * to be read as HTML. Keeping the format changes nothing. At 1280 and 390 px.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

// It names its font: MJML links its default web font otherwise, which the dashboard's policy refuses and logs.
const MJML = '<mjml>\n  <mj-head><mj-attributes><mj-all font-family="Arial, sans-serif" /></mj-attributes></mj-head>\n  <mj-body>\n    <mj-section>\n      <mj-column>\n        <mj-text font-size="20px" color="#1d4ed8">Hello {{ first_name }}</mj-text>\n        <mj-button href="https://example.com/offer">See the offer</mj-button>\n      </mj-column>\n    </mj-section>\n  </mj-body>\n</mjml>\n';

const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe.skipIf(!haveChromium)('switching the content format (issue 34)', () => {
  const d = withDashboard();
  let session: ReturnType<typeof signUpWithApi> | undefined;
  const signedIn = () => (session ??= signUpWithApi(d));

  it('warns before MJML becomes HTML, and converts it to its compiled HTML, merge tags kept (1280 px)', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signedIn();
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Designed', subject: 'Hi', format: 'mjml', html: MJML });
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const format = page.getByRole('combobox', { name: 'Format', exact: true });
    await expect.poll(() => format.inputValue(), { timeout: 15_000 }).toBe('MJML');

    await choose(page, 'Format', 'HTML');
    const dialog = page.getByRole('dialog', { name: 'Switch the content from MJML to HTML?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.innerText()).toMatch(/the design falls apart into loose text/);
    // Nothing has changed yet.
    expect(await format.inputValue()).toBe('MJML');
    await screenshot(page, 'campaign-format-switch-desktop');

    await dialog.getByRole('button', { name: 'Convert to HTML' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await format.inputValue()).toBe('HTML');
    const source = page.getByRole('textbox', { name: /^HTML content/ });
    const html = await source.inputValue();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('{{ first_name }}');
    expect(html).toContain('href="https://example.com/offer"');
    expect(html).not.toMatch(/<mj-/);
    // The preview renders the converted HTML as the MJML rendered: the same words.
    const preview = page.frameLocator('iframe[title="Campaign preview"]');
    await expect.poll(() => preview.getByText('Hello Ann').isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await preview.getByRole('link', { name: 'See the offer' }).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).format).toBe('html');
    expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).html).toContain('{{ first_name }}');
    expect(d.browser.problems).toEqual([]);
  });

  it('warns before Markdown becomes MJML; keeping Markdown changes nothing (390 px)', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signedIn();
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Notes', subject: 'Hi', format: 'markdown', html: '# News\n\nRead [more](https://example.com/more).' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const format = page.getByRole('combobox', { name: 'Format', exact: true });
    await expect.poll(() => format.inputValue(), { timeout: 15_000 }).toBe('Markdown');

    await choose(page, 'Format', 'MJML');
    const dialog = page.getByRole('dialog', { name: 'Switch the content from Markdown to MJML?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.innerText()).toMatch(/will not compile, nor save, until it is rewritten in MJML/);
    // No conversion is offered where none can be made.
    expect(await dialog.getByRole('button', { name: 'Convert to HTML' }).count()).toBe(0);
    expect(await fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'campaign-format-switch-phone');
    await dialog.getByRole('button', { name: 'Keep Markdown' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await format.inputValue()).toBe('Markdown');
    expect(await page.getByRole('textbox', { name: /^Markdown content/ }).inputValue()).toBe('# News\n\nRead [more](https://example.com/more).');

    // Empty content switches without a question.
    await page.getByRole('textbox', { name: /^Markdown content/ }).fill('');
    await choose(page, 'Format', 'HTML');
    expect(await format.inputValue()).toBe('HTML');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await fitsTheScreen(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(d.browser.problems).toEqual([]);
  });
});
