/**
 * Issue 34 item 6 in a real browser: after "Save draft" the preview keeps the last render, with a
 * spinner and "Updating the preview…", until the new one arrives (it went blank for seconds: the
 * page remounts the editor after a save). The preview requests are held at the browser's edge
 * (page.route, then passed on unchanged to the real server) so the page is seen while it waits.
 */
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

const PREVIEW = /\/api\/v1\/campaigns\/\d+\/preview$/;

async function holdPreviews(page: Page) {
  const held: Route[] = [];
  let open = false;
  await page.route(PREVIEW, async (route) => {
    if (open) return route.continue();
    held.push(route);
  });
  return {
    count: () => held.length,
    release: async () => {
      open = true;
      for (const route of held) await route.continue();
      await page.unroute(PREVIEW);
    },
  };
}

describe.skipIf(!haveChromium)('the campaign preview after a save (issue 34)', () => {
  const d = withDashboard();
  let session: ReturnType<typeof signUpWithApi> | undefined;
  const signedIn = () => (session ??= signUpWithApi(d));

  for (const [width, height, label] of [
    [1280, 860, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    it(`keeps the last render with a spinner until the new one arrives (${width} px)`, { timeout: 120_000 }, async () => {
      const { page } = d.browser;
      const { call } = await signedIn();
      const campaign = await call('POST', '/api/v1/campaigns', { name: `Kept ${label}`, subject: 'Hi', html: '<h1>Version one</h1><p>Hello {{ first_name }}</p>' });
      await page.setViewportSize({ width, height });
      await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
      const preview = page.frameLocator('iframe[title="Campaign preview"]');
      await expect.poll(() => preview.getByRole('heading', { name: 'Version one' }).isVisible(), { timeout: 30_000 }).toBe(true);

      // Marks the frame element, to see when the page has put a new one in its place (the remount after saving).
      const frame = page.locator('iframe[title="Campaign preview"]');
      await frame.evaluate((el) => el.setAttribute('data-before-save', ''));
      const gate = await holdPreviews(page);
      await page.getByText('Source', { exact: true }).click();
      await page.getByRole('textbox', { name: /^HTML content/ }).fill('<h1>Version two</h1><p>Hello {{ first_name }}</p>');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).html).toMatch(/Version two/);
      await expect.poll(() => page.locator('iframe[data-before-save]').count()).toBe(0);
      await expect.poll(() => gate.count()).toBeGreaterThan(0);

      // The new render is on its way: the old one is still there, with the spinner and its words.
      expect(await preview.getByRole('heading', { name: 'Version one' }).isVisible()).toBe(true);
      expect(await page.getByRole('status').filter({ hasText: 'Updating the preview…' }).isVisible()).toBe(true);
      expect(await page.locator('[aria-busy="true"]').filter({ has: frame }).count()).toBe(1);
      // The preview's top (its title with the spinner, the inbox line, the old render) in view.
      await page.getByText('Updating the preview…').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await screenshot(page, `campaign-preview-updating-${label}`);

      await gate.release();
      await expect.poll(() => preview.getByRole('heading', { name: 'Version two' }).isVisible(), { timeout: 30_000 }).toBe(true);
      await expect.poll(() => page.getByText('Updating the preview…').count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.setViewportSize({ width: 1280, height: 860 });
      expect(d.browser.problems).toEqual([]);
    });
  }
});
