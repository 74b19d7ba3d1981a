/**
 * D23 in a real browser: the campaign editor's A/B section saves variants and settings, and the
 * report of a sent A/B campaign shows each variant with its share, figures and the winner.
 */
import { describe, expect, it } from 'vitest';
import { sendable } from '../sending/send-helpers.ts';
import { haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('A/B tests in the dashboard (D23)', () => {
  const d = withDashboard({ env: { SEND_POLL_MS: '50' }, start: (s) => s.sender.dispatcher.start() });

  it('adds variants in the editor, then shows the per-variant report with the winner', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signUpWithApi(d);
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    for (const name of ['ann', 'bob', 'cat', 'dan']) await call('POST', '/api/v1/contacts', { email: `${name}@example.com`, list_id: list.id });
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Spring launch', ...sendable([list.id]) });

    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const section = page.getByLabel('A/B test');
    await expect.poll(() => section.getByText('Test variants').isVisible()).toBe(true);
    await section.getByRole('switch', { name: 'Test variants' }).check();
    await page.getByRole('textbox', { name: 'Variant A subject' }).fill('Spring is here');
    await page.getByRole('textbox', { name: 'Variant B subject' }).fill('Our spring launch');
    await page.getByRole('textbox', { name: 'Variant B sender name' }).fill('Ada at Acme');
    await page.getByRole('textbox', { name: /^Test share/ }).fill('50');
    await page.getByRole('textbox', { name: /^Wait/ }).fill('30');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).ab_test).toEqual({ test_percent: 50, metric: 'human_opens', wait_minutes: 30 });
    expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).variants).toEqual([{ subject: 'Spring is here' }, { subject: 'Our spring launch', from_name: 'Ada at Acme' }]);
    // Saving reloads the campaign and the editor with it (the section may be replaced while it scrolls): shown again from what was saved.
    const scrolled = () => page.getByLabel('Variant A', { exact: true }).scrollIntoViewIfNeeded({ timeout: 1000 }).then(() => true, () => false);
    await expect.poll(scrolled).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Variant B sender name' }).inputValue()).toBe('Ada at Acme');
    await screenshot(page, 'campaign-ab-editor');

    // Sent: one recipient per variant, then the wait (moved back in the database rather than waited for).
    await call('POST', `/api/v1/campaigns/${campaign.id}/send`);
    const phase = () => d.server.db.selectFrom('campaigns').select(['ab_phase', 'status']).where('id', '=', campaign.id).executeTakeFirstOrThrow();
    await expect.poll(async () => (await phase()).ab_phase, { timeout: 30_000 }).toBe('WAITING');
    await page.reload();
    const table = page.getByRole('table', { name: 'Variants' });
    await expect.poll(() => table.getByRole('row').filter({ hasText: 'Our spring launch' }).innerText()).toMatch(/Ada at Acme\s+25\.0%\s+1\s+0 · 0\.0%\s+0 · 0\.0%\s+Testing/i);
    await d.server.db.updateTable('campaigns').set({ ab_wait_until: new Date(Date.now() - 1000).toISOString() }).where('id', '=', campaign.id).execute();
    await expect.poll(async () => (await phase()).status, { timeout: 30_000 }).toBe('SENT');

    // No opens on either: a tie, so the first variant wins and went to the other two.
    await page.reload();
    await expect.poll(() => page.getByLabel('Variant A won').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await table.getByRole('row').filter({ hasText: 'Spring is here' }).innerText()).toMatch(/75\.0%\s+3\s+/);
    await screenshot(page, 'campaign-ab-report');
  });
});
