/**
 * Issue 34, item 1, in a real browser: a send under way is paused, resumed and cancelled from the
 * campaign page (cancel asks first, and its recipients not yet sent show as Cancelled), the list
 * shows the new statuses, and a draft is deleted (asked first, then back to the list); at 1280 and
 * 390 px. No sender runs here: a campaign sent stays SENDING, so each state is a step, not a moment.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sendable } from '../sending/send-helpers.ts';
import { haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe.skipIf(!haveChromium)('campaign controls (issue 34)', () => {
  const d = withDashboard();

  it('pauses, resumes and cancels a send, and deletes a draft, at 1280 and 390 px', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await page.setViewportSize({ width: 1280, height: 860 });
    const { call } = await signUpWithApi(d);
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    for (const name of ['ann', 'bob', 'cat']) await call('POST', '/api/v1/contacts', { email: `${name}@example.com`, list_id: list.id });
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Autumn sale', ...sendable([list.id]) });
    await call('POST', `/api/v1/campaigns/${campaign.id}/send`);
    const status = async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).status;

    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await expect.poll(() => page.getByLabel('Status SENDING').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Pause sending' }).click();
    await expect.poll(() => page.getByLabel('Status PAUSED').isVisible()).toBe(true);
    expect(await status()).toBe('PAUSED');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'No more messages go out until sending is resumed' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Pause sending' }).count()).toBe(0);
    await screenshot(page, 'campaign-controls-desktop');

    await page.getByRole('button', { name: 'Resume sending' }).click();
    await expect.poll(() => page.getByLabel('Status SENDING').isVisible()).toBe(true);
    expect(await status()).toBe('SENDING');

    // Cancel asks first; keeping it sending changes nothing.
    await page.getByRole('button', { name: 'Cancel sending' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this campaign?' });
    await expect.poll(() => dialog.getByText('will never get it').isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Keep sending' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await status()).toBe('SENDING');
    await page.getByRole('button', { name: 'Cancel sending' }).click();
    await dialog.getByRole('button', { name: 'Cancel campaign' }).click();
    await expect.poll(() => page.getByLabel('Status CANCELLED').isVisible()).toBe(true);
    expect(await status()).toBe('CANCELLED');
    expect(await page.getByRole('button', { name: /^(Pause|Resume|Cancel) sending$/ }).count()).toBe(0);
    await expect.poll(() => page.getByRole('status').filter({ hasText: /0 of 3 sent .* 3 cancelled/ }).isVisible()).toBe(true);

    // The recipients not sent are there, each Cancelled.
    await page.getByRole('tab', { name: 'Recipients' }).click();
    await page.getByLabel('Recipient status').getByText('Cancelled', { exact: true }).click();
    const rows = page.getByRole('row').filter({ hasText: '@example.com' });
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.filter({ hasText: 'CANCELLED' }).count()).toBe(3);

    // The list shows the new status.
    await page.getByRole('link', { name: '← Campaigns' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Autumn sale' });
    await expect.poll(() => row.innerText()).toContain('CANCELLED');

    // A draft: deleted after a confirmation, then back to the list.
    const draft = await call('POST', '/api/v1/campaigns', { name: 'Scrap this' });
    await page.goto(`${d.server.url}/campaigns/${draft.id}`);
    await page.getByRole('button', { name: 'Delete draft' }).click();
    await page.getByRole('dialog', { name: 'Delete the draft “Scrap this”?' }).getByRole('button', { name: 'Delete draft' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/campaigns');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Autumn sale' }).isVisible()).toBe(true);
    expect(await page.getByRole('row').filter({ hasText: 'Scrap this' }).count()).toBe(0);
    expect((await d.server.request('GET', `/api/v1/campaigns/${draft.id}`, {})).status).not.toBe(200);

    // On a phone: the controls fit, nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const winter = await call('POST', '/api/v1/campaigns', { name: 'Winter letter', ...sendable([list.id]) });
    await call('POST', `/api/v1/campaigns/${winter.id}/send`);
    await page.goto(`${d.server.url}/campaigns/${winter.id}`);
    await page.getByRole('button', { name: 'Pause sending' }).click();
    await expect.poll(() => page.getByLabel('Status PAUSED').isVisible()).toBe(true);
    expect((await call('GET', `/api/v1/campaigns/${winter.id}`)).status).toBe('PAUSED');
    for (const name of ['Resume sending', 'Cancel sending']) expect(await page.getByRole('button', { name }).isVisible()).toBe(true);
    await expect.poll(() => noSideScroll(page)).toBe(true);
    await screenshot(page, 'campaign-controls-phone');
  });
});
