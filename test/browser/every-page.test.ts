/**
 * Issue 34 ("Done means"): every page of the dashboard, at 390 px and 1280 px, signed in (with data
 * on every page) and signed out, scrolls no page sideways and logs no console error or page error.
 * The pages come from the router itself (web/src/App.tsx): a route this file does not know how to
 * visit fails the first test, so the next page added is held to the same rules.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium, signUp, withDashboard } from './browser.ts';
import { seedAccount, type Seeded } from './seed-account.ts';

const APP = readFileSync(new URL('../../web/src/App.tsx', import.meta.url), 'utf8');
/** Every `<Route path="…">` of the router, once each. */
const ROUTES = [...new Set([...APP.matchAll(/<Route\s+path="([^"]+)"/g)].map((m) => m[1]))];

/** Where to go for each route: the addresses a user would open, with the seeded account's ids. */
const VISITS: Record<string, (s: Seeded) => string[]> = {
  '/': () => ['/'],
  '*': () => ['/no-such-page'],
  '/invite/:token': () => ['/invite/an-invitation-token'],
  '/reset/:token': () => ['/reset/a-reset-token'],
  '/forgot-password': () => ['/forgot-password'],
  '/signup': () => ['/signup'],
  '/signup/confirm': () => ['/signup/confirm#a-confirmation-token'],
  '/signin': () => ['/signin'],
  '/login': () => ['/login'],
  '/overview': () => ['/overview'],
  '/settings': () => ['/settings'],
  '/settings/webhooks': () => ['/settings/webhooks'],
  '/settings/members': () => ['/settings/members'],
  '/settings/security': () => ['/settings/security'],
  '/settings/audit-log': () => ['/settings/audit-log'],
  '/settings/domains': () => ['/settings/domains'],
  '/domains': () => ['/domains'],
  '/members': () => ['/members'],
  '/security': () => ['/security'],
  '/audit-log': () => ['/audit-log'],
  '/api-keys': () => ['/api-keys'],
  '/settings/api-keys': () => ['/settings/api-keys'],
  '/keys': () => ['/keys'],
  '/contacts': () => ['/contacts'],
  '/contacts/:email': (s) => [`/contacts/${encodeURIComponent(s.contact)}`],
  '/lists': () => ['/lists'],
  '/lists/:id': (s) => [`/lists/${s.list}`],
  '/forms': () => ['/forms'],
  '/forms/:id': (s) => [`/forms/${s.form}`],
  '/templates': () => ['/templates'],
  '/templates/:id': (s) => [`/templates/${s.template}`],
  '/segments': () => ['/segments'],
  '/segments/:id': (s) => [`/segments/${s.segment}`],
  '/suppressions': () => ['/suppressions'],
  '/campaigns': () => ['/campaigns'],
  // The report of a sent campaign, and the editor of an MJML draft with its preview.
  '/campaigns/:id': (s) => [`/campaigns/${s.sentCampaign}`, `/campaigns/${s.mjmlDraft}`],
  '/transactional': () => ['/transactional'],
  '/automations': () => ['/automations'],
  '/automations/:id': (s) => [`/automations/${s.automation}`],
  '/inbox': () => ['/inbox'],
};

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 860 },
  { name: 'phone', width: 390, height: 844 },
];

/** Opens `path` and waits until the page has its data (no request in flight, no loader shown). */
async function settle(page: Page, url: string) {
  await page.goto(url, { waitUntil: 'networkidle' });
  await expect.poll(() => page.locator('.mantine-Loader-root:visible').count(), { timeout: 20_000, message: `${url} keeps showing a loader` }).toBe(0);
}

/** What is wrong with the page at this width: sideways scroll, console errors, page errors. */
async function problemsOf(page: Page, errors: string[], label: string): Promise<string[]> {
  const found: string[] = [];
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  if (scrollWidth > innerWidth) found.push(`${label}: scrolls sideways (${scrollWidth} px wide in ${innerWidth} px)`);
  for (const e of errors.splice(0)) found.push(`${label}: ${e}`);
  return found;
}

describe.skipIf(!haveChromium)('every dashboard page (issue 34)', () => {
  const d = withDashboard({ env: { SEND_POLL_MS: '50' }, start: (s) => s.sender.dispatcher.start(), ownPublicUrl: true });

  it('visits every route of the router (App.tsx)', () => {
    expect(ROUTES.length).toBeGreaterThan(20);
    expect(ROUTES.filter((r) => !VISITS[r]), 'routes of web/src/App.tsx this test does not visit: add them to VISITS').toEqual([]);
  });

  async function visitAll(seeded: Seeded, state: string): Promise<string[]> {
    const { page } = d.browser;
    const errors: string[] = [];
    const onConsole = (msg: { type(): string; text(): string; location(): { url?: string } }) => {
      if (msg.type() === 'error') errors.push(`console error: ${msg.text()} (${msg.location().url ?? ''})`);
    };
    const onPageError = (err: Error) => errors.push(`page error: ${err.message}`);
    page.on('console', onConsole);
    page.on('pageerror', onPageError);
    const found: string[] = [];
    try {
      for (const size of WIDTHS) {
        await page.setViewportSize({ width: size.width, height: size.height });
        for (const route of ROUTES) {
          for (const path of VISITS[route]!(seeded)) {
            await settle(page, d.server.url + path);
            found.push(...(await problemsOf(page, errors, `${state} ${size.width} px ${path}`)));
          }
        }
      }
    } finally {
      page.off('console', onConsole);
      page.off('pageerror', onPageError);
      await page.setViewportSize({ width: 1280, height: 860 });
    }
    return found;
  }

  it('signed in, with data, then signed out: no page scrolls sideways at 390 or 1280 px, none logs an error', { timeout: 600_000 }, async () => {
    const email = await signUp(d.browser.page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const seeded = await seedAccount(d.server, Number(user.account_id));
    // `/campaigns/:id` of the MJML draft is the campaign editor (730 px wide at 390 px before issue
    // 34; its two columns now shrink, see app.css .two-columns), held here like every other page.
    const signedIn = await visitAll(seeded, 'signed in');
    await d.browser.page.goto(d.server.url + '/overview');
    await d.browser.page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => d.browser.page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    const signedOut = await visitAll(seeded, 'signed out');
    expect([...signedIn, ...signedOut]).toEqual([]);
  });
});
