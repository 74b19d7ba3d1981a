/**
 * Drives Debian's Chromium with playwright-core against the built dashboard served by a real
 * server. Without /usr/bin/chromium the browser suites are skipped with one line, except under
 * CI=true, where that is a failure.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ownPublicUrl, startTestServer, type TestServer } from '../helpers/server.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
// Under CI the browser tests must run (.ci/run installs Chromium): a missing one fails the run.
if (!haveChromium && process.env.CI === 'true') throw new Error(`CI: the browser tests must run, but there is no Chromium at ${CHROMIUM}`);
if (!haveChromium) {
  const seen = globalThis as { sendwellBrowserNoticeShown?: boolean };
  if (!seen.sendwellBrowserNoticeShown) console.warn(`Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium).`);
  seen.sendwellBrowserNoticeShown = true;
}

const screenshots = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** URLs the page (and its frames) asked for, to prove a script never ran */
  requested: string[];
  /** Content-Security-Policy violations and page errors the console reported */
  problems: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'sendwell-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const requested: string[] = [];
  const problems: string[] = [];
  context.on('request', (req) => requested.push(req.url()));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return {
    context,
    page,
    requested,
    problems,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Keeps a picture of a main page for the README (docs/screenshots). Taken when missing, or every
 * time with UPDATE_SCREENSHOTS=1, so an ordinary test run leaves the committed pictures alone.
 */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  const path = join(screenshots, `${name}.png`);
  if (existsSync(path) && process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path, fullPage: opts.fullPage ?? false, animations: 'disabled' });
}

let signUps = 0;
/** Signs up through the form; answers the e-mail used. */
export async function signUp(page: Page, baseUrl: string, organisation = 'Acme Inc.'): Promise<string> {
  const email = `owner${++signUps}-${Date.now()}@example.com`;
  await page.goto(baseUrl + '/signup');
  await page.getByLabel('Organisation name').fill(organisation);
  await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
  await page.getByRole('textbox', { name: /^Password/ }).fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
  return email;
}

/**
 * Signs up through the form, and answers a caller of the API as the new account (a `*` key), for
 * seeding what a test does not do through the pages. `call` answers the response's `data`.
 */
export async function signUpWithApi(d: Dashboard) {
  const email = await signUp(d.browser.page, d.server.url);
  const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
  const { key } = await d.server.createKey(Number(user.account_id), ['*']);
  const call = (method: string, path: string, body?: unknown) => d.server.request(method, path, { key, body }).then((r) => r.body.data);
  return { email, call };
}

/** Picks an option of a Mantine Select / MultiSelect by its visible label. */
export async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

export interface Dashboard {
  server: TestServer;
  browser: Browser;
}

/**
 * For a describe block: a real server (with `start` run on it, e.g. the sender loops) and a fresh
 * Chromium, both closed after the block. Read `server` and `browser` inside the tests.
 */
export function withDashboard(opts: { env?: Record<string, string>; start?: (server: TestServer) => void; ownPublicUrl?: boolean } = {}): Dashboard {
  const d = {} as Dashboard;
  beforeAll(async () => {
    // A server answering at its PUBLIC_URL, for pages that load what it names (the gallery's pictures).
    const own = opts.ownPublicUrl ? await ownPublicUrl() : {};
    // D17.7: the browser tests sign up an account per test; later sign-ups need ALLOW_SIGNUP.
    d.server = await startTestServer({ ALLOW_SIGNUP: 'true', ...own, ...opts.env });
    opts.start?.(d.server);
    d.browser = await openBrowser();
  }, 60_000);
  afterAll(async () => {
    await d.browser?.close();
    await d.server?.close();
  });
  return d;
}
