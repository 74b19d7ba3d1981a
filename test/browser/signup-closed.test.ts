/**
 * D17.7 in a real browser: the operator's first sign-up on an empty instance works from the
 * dashboard; after it, without ALLOW_SIGNUP, the sign-in page no longer offers sign-up and says to
 * ask the operator, and the sign-up page says it is closed.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('D17.7: the dashboard once sign-up has closed', () => {
  const d = withDashboard({ env: { ALLOW_SIGNUP: 'false' } });

  it('offers sign-up on an empty instance, then says it is closed and to ask the operator', { timeout: 120_000 }, async () => {
    const { page, context } = d.browser;
    // Issue 34 (18): on an empty instance the sign-in page gives way to "Create the first account".
    await page.goto(d.server.url + '/signin');
    await expect.poll(() => page.getByRole('heading', { name: 'Create the first account' }).isVisible()).toBe(true);

    // The operator's sign-up: signed in at once.
    await signUp(page, d.server.url);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);

    await page.goto(d.server.url + '/signin');
    await expect.poll(() => page.getByText(/Sign-up is closed on this instance: ask the person who runs it/).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Create an account' }).count()).toBe(0);

    // An old bookmark of the sign-up page: no form, the same advice, and a way to sign in.
    await page.goto(d.server.url + '/signup');
    await expect.poll(() => page.getByRole('heading', { name: 'Sign-up is closed' }).isVisible()).toBe(true);
    expect(await page.getByText(/Ask the person who runs it to create an account for you/).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create account' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    await context.clearCookies();
  });
});
