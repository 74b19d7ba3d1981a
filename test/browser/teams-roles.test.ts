/**
 * D24.9 in a real browser: a role is offered only what it may use (a viewer no send, write or
 * admin page; an author drafts but never sends), and D24.7's sign-in page: "Sign in with SSO"
 * only when single sign-on is set up, and /login?error=<code> in words.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';
import { atPhoneWidth, mailedLink, PASSWORD, signedIn } from './teams-helpers.ts';

const navItems = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

describe.skipIf(!haveChromium)('D24.9: pages and buttons a role cannot use are not offered', () => {
  const d = withDashboard();

  it('a viewer sees no send, create or delete button and no admin page; an author drafts but is offered no send', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { email: owner, call } = await signUpWithApi(d);
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Spring letter', subject: 'Hello', from_email: 'news@example.com', html: '<p>Hi</p>', list_ids: [list.id] });

    // As the owner: every page, and the send button.
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await expect.poll(() => page.getByRole('button', { name: 'Send now' }).isVisible()).toBe(true);
    expect(await navItems(page)).toEqual(expect.arrayContaining(['API keys', 'Webhooks', 'Dev inbox', 'Audit log', 'Members']));

    // The owner's key (an admin's reach) invites a viewer, who joins through the mailed link.
    const viewer = `viewer-${Date.now()}@example.com`;
    await call('POST', '/api/v1/invitations', { email: viewer, role: 'viewer' });
    await page.context().clearCookies();
    await page.goto(d.server.url + (await mailedLink(d.server, viewer, 'invite')));
    await page.getByLabel(/^New password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Join' }).click();
    await signedIn(page);
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Spring letter' }).isVisible()).toBe(true);
    for (const name of ['Send now', 'Send test', 'Schedule', 'Save draft', 'Duplicate']) expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    // Its fields are read only: typing into them could never be saved.
    expect(await page.getByRole('textbox', { name: 'Subject' }).isDisabled()).toBe(true);
    expect(await page.getByText('Your role can read this campaign but not change it.').isVisible()).toBe(true);
    const items = await navItems(page);
    for (const hidden of ['API keys', 'Webhooks', 'Dev inbox', 'Audit log']) expect(items).not.toContain(hidden);
    expect(items).toEqual(expect.arrayContaining(['Campaigns', 'Contacts', 'Members', 'Security']));
    await screenshot(page, 'teams-viewer-campaign', { fullPage: true });

    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Campaigns' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'New campaign' }).count()).toBe(0);
    await atPhoneWidth(page, () => screenshot(page, 'phone-teams-viewer-campaigns'));
    await page.getByRole('link', { name: 'Contacts', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Contacts' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'New contact' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Import CSV' }).count()).toBe(0);
    // An admin page's address typed by hand says so rather than failing on every request.
    await page.goto(`${d.server.url}/keys`);
    await expect.poll(() => page.getByText('Your role does not give access to this page.').isVisible()).toBe(true);

    // Made an author: the live session has the new role at once (D24.1).
    const member = (await call('GET', '/api/v1/members?size=100')).members.find((m: { email: string }) => m.email === viewer);
    await call('PUT', `/api/v1/members/${member.id}`, { role: 'author' });
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await expect.poll(() => page.getByRole('button', { name: 'Save draft' }).isVisible()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Subject' }).isDisabled()).toBe(false);
    expect(await page.getByRole('button', { name: 'Send now' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send test' }).count()).toBe(0);
    expect(await navItems(page)).not.toContain('API keys');

    // Made an admin: members and invitations, but nothing an owner alone may do (D24.2/D24.3).
    await call('PUT', `/api/v1/members/${member.id}`, { role: 'admin' });
    await page.goto(`${d.server.url}/settings/members`);
    const members = page.getByRole('table', { name: 'Members' });
    await expect.poll(() => members.getByRole('row').count()).toBe(3);
    expect(await navItems(page)).toEqual(expect.arrayContaining(['API keys', 'Audit log']));
    const ownerRow = members.getByRole('row').filter({ hasText: owner });
    expect(await ownerRow.getByRole('combobox').count()).toBe(0);
    expect(await ownerRow.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await page.getByRole('combobox', { name: 'Role', exact: true }).click();
    const offered = await page.getByRole('option').allTextContents();
    expect(offered).toEqual(['Admin', 'Manager', 'Author', 'Viewer']);
    await page.keyboard.press('Escape');
    await screenshot(page, 'teams-members-as-admin', { fullPage: true });
  });

  it('D24.7: without single sign-on set up, the sign-in page offers no SSO button; /login?error=<code> says what happened', { timeout: 60_000 }, async () => {
    const { page, context } = d.browser;
    await context.clearCookies();
    await page.goto(`${d.server.url}/login?error=sso_state`);
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Single sign-on did not sign you in' }).isVisible()).toBe(true);
    expect(await page.getByRole('alert').textContent()).toMatch(/try again/i);
    expect(await page.getByRole('link', { name: 'Forgot password?' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Sign in with SSO' }).count()).toBe(0);
    await screenshot(page, 'teams-sign-in-error');
  });

  it('none of these pages, for any role, had a page error or a Content-Security-Policy violation', () => {
    expect(d.browser.problems).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('D24.7: with single sign-on set up', () => {
  // Any loopback issuer: the sign-in page only reads whether SSO is configured.
  const d = withDashboard({ env: { OIDC_ISSUER: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'sendwell', OIDC_CLIENT_SECRET: 'not a real secret' } });

  it('the sign-in page offers "Sign in with SSO", leading to /api/v1/auth/oidc/start', { timeout: 60_000 }, async () => {
    const { page } = d.browser;
    // An instance with an account: an empty one opens on "Create the first account" (issue 34 item 18).
    await d.server.createAccount();
    await page.goto(`${d.server.url}/signin`);
    const sso = page.getByRole('link', { name: 'Sign in with SSO' });
    await expect.poll(() => sso.isVisible()).toBe(true);
    expect(await sso.getAttribute('href')).toBe('/api/v1/auth/oidc/start');
    await screenshot(page, 'teams-sign-in-sso');
    await atPhoneWidth(page, () => screenshot(page, 'phone-teams-sign-in-sso'));
  });
});
