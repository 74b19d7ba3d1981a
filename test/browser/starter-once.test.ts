/**
 * Issue 34 item 4 in a real browser: "Use this starter" makes one draft however it is clicked
 * (a double click made two), and says what it is doing while the campaign is created. The
 * creating request is held at the browser's edge (page.route, then passed on unchanged to the
 * real server) so the page can be seen mid-way, at 1280 and at 390 px.
 */
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('"Use this starter" (issue 34)', () => {
  const d = withDashboard();
  let session: ReturnType<typeof signUpWithApi> | undefined;
  const signedIn = () => (session ??= signUpWithApi(d));

  /** Holds every campaign creation until `release`; counts them. */
  async function holdCreations(page: Page) {
    const held: Route[] = [];
    let open = false;
    await page.route(/\/api\/v1\/campaigns$/, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      if (open) return route.continue();
      held.push(route);
    });
    return {
      count: () => held.length,
      release: async () => {
        open = true;
        for (const route of held) await route.continue();
        await page.unroute(/\/api\/v1\/campaigns$/);
      },
    };
  }

  for (const [width, height, label] of [
    [1280, 860, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    it(`makes one draft on a double click and says so while it works (${width} px)`, { timeout: 120_000 }, async () => {
      const { page } = d.browser;
      const { call } = await signedIn();
      const before = (await call('GET', '/api/v1/campaigns?size=100')).totalElements as number;
      await page.setViewportSize({ width, height });
      await page.goto(d.server.url + '/templates');
      const card = page.getByRole('region', { name: 'Starters' }).getByRole('article', { name: 'Newsletter' });
      const use = card.getByRole('button', { name: 'Use this starter' });
      await expect.poll(() => use.isVisible()).toBe(true);

      const gate = await holdCreations(page);
      // Two clicks in one task, as a double click on a busy machine arrives: the second lands
      // before React has re-rendered the button disabled (a Playwright dblclick leaves it time to).
      await use.evaluate((button: HTMLButtonElement) => {
        button.click();
        button.click();
      });
      await expect.poll(() => card.getByRole('status').textContent()).toBe('Creating a campaign from “Newsletter”…');
      expect(await use.isDisabled()).toBe(true);
      // A third click on the disabled button adds nothing either.
      await use.dispatchEvent('click');
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, `starter-creating-${label}`);
      expect(gate.count()).toBe(1);
      await gate.release();

      await expect.poll(() => page.url(), { timeout: 20_000 }).toMatch(/\/campaigns\/\d+$/);
      await expect.poll(() => page.getByRole('heading', { name: 'Newsletter' }).isVisible(), { timeout: 20_000 }).toBe(true);
      expect((await call('GET', '/api/v1/campaigns?size=100')).totalElements).toBe(before + 1);
      await page.setViewportSize({ width: 1280, height: 860 });
      expect(d.browser.problems).toEqual([]);
    });
  }
});
