/**
 * Issue 14 L5 in a real browser: after the operator's first sign-up, the sign-up page says to
 * check the mail, and the mailed link's page creates the account and signs in.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('L5: the dashboard sign-up after the first', () => {
  const d = withDashboard();

  it('shows "Check your mail", and the link signs the new account in', { timeout: 120_000 }, async () => {
    const { page, context } = d.browser;
    // The first sign-up on the empty instance: signed in at once.
    await signUp(page, d.server.url);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);

    const email = `second-${Date.now()}@example.com`;
    await page.goto(d.server.url + '/signup');
    await page.getByLabel('Organisation name').fill('Second Inc.');
    await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
    await page.getByRole('textbox', { name: /^Password/ }).fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Check your mail' }).isVisible()).toBe(true);
    expect(await page.getByText(email).isVisible()).toBe(true);

    const mail = await d.server.db.selectFrom('dev_inbox').select('text').where('to_address', '=', email).executeTakeFirstOrThrow();
    const link = /(https?:\/\/\S+\/signup\/confirm#[A-Za-z0-9_-]+)/.exec(mail.text!)![1];
    // The link is built from PUBLIC_URL; this server's address is the test server's.
    await page.goto(d.server.url + new URL(link).pathname + new URL(link).hash);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(await page.getByText(`${email} · Second Inc. (free)`).isVisible()).toBe(true);
    await context.clearCookies();
  });
});
