/**
 * D24.7 in a real browser: the sign-in page offers "Sign in with SSO" only when an OpenID provider
 * is configured; the button goes through a real provider (oidc-provider) and back signed in, and a
 * refused sign-in lands on the sign-in page with its message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, openBrowser, type Browser } from './browser.ts';
import { ownPublicUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { startOpenIdProvider, type OpenIdProvider } from '../teams/openid-provider.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

describe.skipIf(!haveChromium)('D24.7: single sign-on from the sign-in page', () => {
  let provider: OpenIdProvider;
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    const own = await ownPublicUrl();
    provider = await startOpenIdProvider(`${own.PUBLIC_URL}/api/v1/auth/oidc/callback`);
    server = await startTestServer({ ...own, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret });
    const account = await server.createAccount({ name: 'Acme Inc.' });
    await server.core.users.create(SYSTEM_ACTING, account.id, { email: 'member@example.com', password: 'a long password' });
    browser = await openBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await provider?.close();
  });

  it('D24.7: an unknown address comes back to the sign-in page with its message; a member is signed in', { timeout: 120_000 }, async () => {
    const { page, context } = browser;
    provider.account = { sub: 'stranger', email: 'stranger@example.com', email_verified: true };
    await page.goto(`${server.url}/signin`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await expect.poll(() => page.getByText('No account here has this e-mail address').isVisible()).toBe(true);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/login?error=sso_no_account');

    provider.account = { sub: 'member', email: 'member@example.com', email_verified: true };
    await context.clearCookies();
    await page.goto(`${server.url}/signin`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(await page.getByText('member@example.com · Acme Inc.').isVisible()).toBe(true);
    expect(browser.problems).toEqual([]);
    await context.clearCookies();
  });

  it('D24.7: without OIDC_ISSUER the sign-in page offers no SSO', { timeout: 60_000 }, async () => {
    const plain = await startTestServer();
    try {
      const { page } = browser;
      // An instance with an account (an empty one opens on "Create the first account", issue 34).
      await plain.createAccount();
      await page.goto(`${plain.url}/signin`);
      // The form shows once the status answer, which also decides SSO, has arrived.
      await expect.poll(() => page.getByText(/Sign-up is closed on this instance/).isVisible()).toBe(true);
      expect(await page.getByRole('link', { name: 'Sign in with SSO' }).count()).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
