/**
 * D24.9 in a real browser: members and invitations, accepting an invitation, a password reset,
 * two-factor setup and sign-in, sessions and the audit log, each at 1280 and 390 px, with
 * pictures for docs/screenshots.
 */
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUp, withDashboard } from './browser.ts';
import { atPhoneWidth, mailedLink, PASSWORD, signedIn, signIn, signOut } from './teams-helpers.ts';

const totpOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret.replace(/\s/g, '')), algorithm: 'SHA1', digits: 6, period: 30 });

describe.skipIf(!haveChromium)('D24.9: the team in the dashboard', () => {
  const d = withDashboard();
  let owner = '';
  const manager = `manager-${Date.now()}@example.com`;

  it('D24.2/D24.3: an owner invites a manager from Members; the mailed link sets a password and signs the new member in', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    owner = await signUp(page, d.server.url, 'Team Inc.');
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Members' }).getByText(owner).isVisible()).toBe(true);

    await page.getByRole('textbox', { name: /^E-mail/ }).fill(manager);
    await choose(page, 'Role', 'Manager');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    await expect.poll(() => pending.getByText(manager).isVisible()).toBe(true);
    await screenshot(page, 'teams-members', { fullPage: true });
    await atPhoneWidth(page, () => screenshot(page, 'phone-teams-members', { fullPage: true }));

    // Resend: a new link; the first stops working (D24.3).
    const first = await mailedLink(d.server, manager, 'invite');
    await page.getByRole('button', { name: `Resend the invitation to ${manager}` }).click();
    await expect.poll(() => mailedLink(d.server, manager, 'invite')).not.toBe(first);
    const link = await mailedLink(d.server, manager, 'invite');

    await signOut(page);
    await page.goto(d.server.url + first);
    await page.getByLabel(/^New password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Join' }).click();
    await expect.poll(() => page.getByRole('alert').isVisible()).toBe(true);

    await page.goto(d.server.url + link);
    await page.getByLabel(/^New password/).fill(PASSWORD);
    await screenshot(page, 'teams-invite-accept');
    await page.getByRole('button', { name: 'Join' }).click();
    await signedIn(page);
    expect(page.url()).toMatch(/\/overview$/);
    expect(await page.getByText(`${manager} · Team Inc.`).isVisible()).toBe(true);
    // A manager sends, but administers neither keys nor members.
    expect(await page.getByRole('link', { name: 'Campaigns', exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Members' }).getByText(owner).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Invite', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: `Remove ${owner}` }).count()).toBe(0);
    await signOut(page);
  });

  it('D24.4: "Forgot password?" mails a link whose page sets a new password; the old one no longer signs in', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await page.goto(d.server.url + '/signin');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('textbox', { name: /^E-mail/ }).fill(manager);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Check your mail' }).isVisible()).toBe(true);
    // The same words for an address that is nobody's.
    const same = await page.getByText(/If a Sendwell user has this address/).textContent();
    await page.goto(d.server.url + '/forgot-password');
    await page.getByRole('textbox', { name: /^E-mail/ }).fill(`nobody-${Date.now()}@example.com`);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await expect.poll(() => page.getByText(/If a Sendwell user has this address/).textContent()).toBe(same);

    await page.goto(d.server.url + (await mailedLink(d.server, manager, 'reset')));
    await page.getByLabel(/^New password/).fill('a brand new password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Password changed' }).isVisible()).toBe(true);
    await screenshot(page, 'teams-reset-done');
    await page.getByRole('link', { name: 'Sign in' }).click();

    await signIn(page, d.server.url, manager, PASSWORD);
    await expect.poll(() => page.getByRole('alert').isVisible()).toBe(true);
    await signIn(page, d.server.url, manager, 'a brand new password');
    await signedIn(page);
    await signOut(page);
  });

  it('D24.6: two-factor setup shows a QR code and the secret, then the recovery codes once; sign-in then asks for a code', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await signIn(page, d.server.url, owner);
    await signedIn(page);
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    await expect.poll(() => qr.isVisible()).toBe(true);
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const secret = (await page.getByLabel('Secret key').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    await screenshot(page, 'teams-totp-setup');
    await atPhoneWidth(page, () => screenshot(page, 'phone-teams-totp-setup', { fullPage: true }));

    const totp = totpOf(secret);
    await page.getByRole('textbox', { name: /^Code/ }).fill('000000' === totp.generate() ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.getByRole('alert').isVisible()).toBe(true);
    const enabledAt = Date.now();
    await page.getByRole('textbox', { name: /^Code/ }).fill(totp.generate({ timestamp: enabledAt }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => codes.count()).toBe(10);
    const recovery = (await codes.first().textContent())!.trim();
    await screenshot(page, 'teams-totp-recovery-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Turn off two-factor sign-in' }).isVisible()).toBe(true);
    await signOut(page);

    // The password alone no longer signs in: the code is asked.
    await signIn(page, d.server.url, owner);
    await expect.poll(() => page.getByRole('heading', { name: 'Two-factor sign-in' }).isVisible()).toBe(true);
    await screenshot(page, 'teams-totp-sign-in');
    await atPhoneWidth(page, () => screenshot(page, 'phone-teams-totp-sign-in'));
    await page.getByRole('textbox', { name: /^Code/ }).fill(totp.generate() === '123456' ? '654321' : '123456');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').isVisible()).toBe(true);
    // The code that enabled TOTP counts as used: the next step's (one step of drift) signs in.
    await page.getByRole('textbox', { name: /^Code/ }).fill(totp.generate({ timestamp: enabledAt + 30_000 }));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await signedIn(page);
    await signOut(page);

    // A recovery code, once.
    await signIn(page, d.server.url, owner);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByRole('textbox', { name: /^Recovery code/ }).fill(recovery);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await signedIn(page);
  });

  it('D24.8: the audit log lists the changes of the team and filters them by action', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    // The owner, signed in by the test before.
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Audit log' }).isVisible()).toBe(true);
    const log = page.getByRole('table', { name: 'Audit log' });
    await expect.poll(() => log.getByText('member.invited').count()).toBeGreaterThan(0);
    expect(await log.getByText('member.joined').count()).toBeGreaterThan(0);
    expect(await log.getByText('auth.totp_enabled').count()).toBeGreaterThan(0);
    await screenshot(page, 'teams-audit-log', { fullPage: true });

    await choose(page, 'Action', 'member.invited');
    await expect.poll(() => log.getByText('auth.totp_enabled').count()).toBe(0);
    expect(await log.getByText('member.invited').count()).toBeGreaterThan(0);
    await atPhoneWidth(page, () => screenshot(page, 'phone-teams-audit-log', { fullPage: true }));
  });
  it('D24.5: sessions list the current one, and another can be signed out; a password change is confirmed', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    // Another session of the manager's, as another browser would make it.
    const other = await d.server.request('POST', '/api/v1/auth/login', { body: { email: manager, password: 'a brand new password' } });
    expect(other.status).toBe(200);
    await signOut(page);
    await signIn(page, d.server.url, manager, 'a brand new password');
    await signedIn(page);
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    const sessions = page.getByRole('table', { name: 'Sessions' });
    await expect.poll(() => sessions.getByRole('row').count()).toBeGreaterThanOrEqual(3);
    expect(await sessions.getByText('This session').count()).toBe(1);
    const before = await sessions.getByRole('row').count();
    await screenshot(page, 'teams-sessions', { fullPage: true });
    await atPhoneWidth(page, () => screenshot(page, 'phone-teams-security', { fullPage: true }));

    await sessions.getByRole('button', { name: /^Sign out the session/ }).first().click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => sessions.getByRole('row').count()).toBe(before - 1);

    await page.getByLabel(/^Current password/).fill('a wrong password');
    await page.getByLabel(/^New password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByRole('alert').isVisible()).toBe(true);
    await page.getByLabel(/^Current password/).fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByRole('status').getByText('Password changed').isVisible()).toBe(true);
    // Every other session ended: only this one is left.
    await expect.poll(() => sessions.getByRole('row').count()).toBe(2);
    await signOut(page);
  });

  it('none of these pages, at 1280 or 390 px, had a page error or a Content-Security-Policy violation', () => {
    expect(d.browser.problems).toEqual([]);
  });
});
