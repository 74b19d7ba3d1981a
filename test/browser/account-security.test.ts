/**
 * D24.4 and D24.6 in a real browser: a user with two-factor signs in with the code its app shows
 * after the password; "Forgot password?" mails a link whose page sets a new password, after which
 * a recovery code signs in.
 */
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { haveChromium, withDashboard } from './browser.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

describe.skipIf(!haveChromium)('D24.4, D24.6: two-factor sign-in and a forgotten password', () => {
  const d = withDashboard();

  it('asks for the code after the password, and the reset link sets a new password', { timeout: 120_000 }, async () => {
    const { page, context } = d.browser;
    const { server } = d;
    const email = `tfa-${Date.now()}@example.com`;
    const account = await server.createAccount({ plan: 'free' });
    const user = await server.core.users.create(SYSTEM_ACTING, account.id, { email, password: 'the first password' });
    const { secret } = await server.core.twoFactor.setup(user);
    const codeAt = (steps: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
    const { recovery_codes } = await server.core.twoFactor.enable(SYSTEM_ACTING, user, codeAt(-1));

    const signInWithPassword = async (password: string) => {
      await page.goto(server.url + '/signin');
      await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
      await page.getByRole('textbox', { name: /^Password/ }).fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('heading', { name: 'Two-factor sign-in' }).isVisible()).toBe(true);
    };

    // The password alone does not sign in: the code of the app does.
    await signInWithPassword('the first password');
    expect((await context.cookies(server.url)).some((c) => c.name === 'sendwell_session')).toBe(false);
    await page.getByRole('textbox', { name: /^Code from your authenticator app/ }).fill(codeAt(0));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Forgot password?' }).isVisible()).toBe(true);

    // Forgot password: the link (in the dev inbox, without SMTP) leads to the new password's page.
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Check your mail' }).isVisible()).toBe(true);
    let text: string | null = null;
    await expect.poll(async () => (text = (await server.db.selectFrom('dev_inbox').select('text').where('to_address', '=', email).executeTakeFirst())?.text ?? null)).not.toBeNull();
    const link = new URL(/(https?:\/\/\S+\/reset\/[A-Za-z0-9_-]+)/.exec(text!)![1]);
    await page.goto(server.url + link.pathname);
    await page.getByRole('textbox', { name: /^New password/ }).fill('the second password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Password changed' }).isVisible()).toBe(true);

    // The new password, then a recovery code instead of the app's.
    await signInWithPassword('the second password');
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByRole('textbox', { name: /^Recovery code/ }).fill(recovery_codes[0]);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(d.browser.problems).toEqual([]);
    await context.clearCookies();
  });
});
