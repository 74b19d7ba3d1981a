/**
 * Issue 16's dashboard in a real browser: the segment builder (fields from the account's own
 * contacts, nested groups, the live count and sample), segments in the campaign audience picker,
 * the suppression page, and a sent campaign's recipients and links tabs with its follow-up and
 * retry buttons. At desktop and phone width, with screenshots.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

/** Picks an option of a Mantine Select inside `scope` (several conditions have a "Field"). */
async function chooseIn(page: Page, scope: Locator, label: string, option: string): Promise<void> {
  await scope.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Nothing pushes the page sideways: polled, as Mantine lays parts out again after a resize. */
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe.skipIf(!haveChromium)('audiences in the dashboard', () => {
  const d = withDashboard({ env: { SEND_POLL_MS: '50' }, start: (s) => s.sender.dispatcher.start() });

  it('builds a segment with nested conditions and a live count, targets it from a campaign, manages suppressions, and works a sent campaign', { timeout: 180_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await d.server.request(method, path, { key, body });
      expect(res.status, res.text).toBeLessThan(300);
      return res.body.data;
    };
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    await call('POST', '/api/v1/contacts', { email: 'ada@example.com', first_name: 'Ada', tags: ['vip'], custom_fields: { plan: 'pro', seats: 12 }, list_id: list.id });
    await call('POST', '/api/v1/contacts', { email: 'ben@example.com', first_name: 'Ben', tags: ['vip'], custom_fields: { plan: 'free', seats: 1 }, list_id: list.id });
    await call('POST', '/api/v1/contacts', { email: 'cy@example.com', first_name: 'Cy', custom_fields: { plan: 'pro', seats: 3 }, list_id: list.id });

    // --- The segment builder -------------------------------------------------------------
    await page.goto(d.server.url + '/segments');
    await expect.poll(() => page.getByText('No segments yet').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.getByRole('textbox', { name: /^Segment name/ }).fill('Pro VIPs');
    const conditions = page.getByLabel('Condition', { exact: true });
    // The first condition starts on Tags; the tag is picked from the tags the account uses.
    await chooseIn(page, conditions.nth(0), 'Operator', 'contains');
    await chooseIn(page, conditions.nth(0), 'Tag', 'vip');
    const live = page.getByLabel('Live preview').getByRole('status');
    await expect.poll(() => live.innerText()).toBe('2 contacts');

    // A custom field the contacts hold is offered by its own name.
    await page.getByRole('button', { name: 'Add condition' }).first().click();
    await chooseIn(page, conditions.nth(1), 'Field', 'plan');
    await chooseIn(page, conditions.nth(1), 'Operator', 'is');
    await conditions.nth(1).getByRole('textbox', { name: 'Value' }).fill('PRO');
    await expect.poll(() => live.innerText()).toBe('1 contacts');
    await expect.poll(() => page.getByLabel('Sample members').getByText('ada@example.com').isVisible()).toBe(true);

    // A nested group: (vip and plan pro) or (any of: seats more than 2) -> Ada and Cy.
    await page.getByRole('button', { name: 'Add group' }).first().click();
    const group = page.getByLabel('Group of conditions', { exact: true });
    await chooseIn(page, group.getByLabel('Condition', { exact: true }), 'Field', 'seats');
    await chooseIn(page, group.getByLabel('Condition', { exact: true }), 'Operator', 'is more than');
    await group.getByLabel('Condition', { exact: true }).getByRole('textbox', { name: 'Value' }).fill('2');
    await expect.poll(() => live.innerText()).toBe('1 contacts'); // all of: vip, pro, seats > 2
    await page.getByLabel('Filter', { exact: true }).getByText('any of', { exact: true }).first().click();
    await expect.poll(() => live.innerText()).toBe('3 contacts'); // any of: vip (Ada, Ben), pro (Cy), seats > 2
    await screenshot(page, 'segment-builder', { fullPage: true });

    // The group's condition becomes an engagement one: sent any campaign.
    await chooseIn(page, group.getByLabel('Condition', { exact: true }), 'Field', 'Was sent a campaign');
    await page.getByRole('button', { name: 'Save segment' }).click();
    await expect.poll(() => page.url()).toMatch(/\/segments\/\d+$/);
    const segmentId = Number(page.url().split('/').at(-1));
    const saved = await call('GET', `/api/v1/segments/${segmentId}`);
    expect(saved.filter).toEqual({
      any: [
        { field: 'tags', op: 'contains', value: 'vip' },
        { field: 'custom_fields.plan', op: 'eq', value: 'PRO' },
        // A new group starts on the other mode than its parent had: "any of" inside "all of".
        { any: [{ field: 'campaign.sent', op: 'eq', value: true, campaign_id: 'any' }] },
      ],
    });
    // Opened again, the saved filter is the same form.
    await page.reload();
    await expect.poll(() => page.getByLabel('Condition', { exact: true }).count()).toBe(3);
    await page.goto(d.server.url + '/segments');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Pro VIPs' }).getByText('3 contacts').isVisible()).toBe(true);

    // At phone width the builder fits the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${d.server.url}/segments/${segmentId}`);
    await expect.poll(() => page.getByLabel('Condition', { exact: true }).count()).toBe(3);
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'phone-segment-builder', { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    // --- Contacts filtered by the segment ---------------------------------------------------
    await page.goto(`${d.server.url}/contacts?segment_id=${segmentId}`);
    await expect.poll(() => page.getByText('3 contacts').isVisible()).toBe(true);

    // --- The suppression page ---------------------------------------------------------------
    await page.goto(d.server.url + '/suppressions');
    await page.getByRole('textbox', { name: /^Address or @domain/ }).fill('BEN@example.com');
    await page.getByRole('textbox', { name: 'Reason' }).fill('asked us by phone');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'ben@example.com' }).getByText('asked us by phone').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^Address or @domain/ }).fill('@nodot');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: '@ followed by a domain' }).isVisible()).toBe(true);
    await screenshot(page, 'suppressions');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'ben@example.com' }).isVisible()).toBe(true);
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'phone-suppressions', { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    // --- A campaign that targets the segment ------------------------------------------------
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Spring', subject: 'Hi {{ first_name }}', from_email: 'news@acme.example', html: '<p>Hi</p><a href="https://acme.example/spring">Spring</a>' });
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await page.getByRole('combobox', { name: /^Segments/ }).click();
    await page.getByRole('option', { name: /^Pro VIPs/ }).click();
    await page.keyboard.press('Escape');
    // Ada and Cy: Ben is suppressed.
    await expect.poll(() => page.getByText('About 2 subscribed recipients').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).segment_ids).toEqual([segmentId]);
    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog', { name: 'Send this campaign now?' }).getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByLabel('Status SENT').isVisible(), { timeout: 30_000 }).toBe(true);

    // Cy's message failed for good (its retries ran out, as a refusing server would make it).
    await d.server.db.updateTable('campaign_recipients').set({ status: 'FAILED', sent_at: null, attempts: 5, last_error: '451 4.7.1 try again later' }).where('campaign_id', '=', campaign.id).where('email', '=', 'cy@example.com').execute();
    await page.reload();

    await page.getByRole('tab', { name: 'Recipients' }).click();
    const recipients = page.getByRole('table', { name: 'Recipients' });
    await expect.poll(() => recipients.getByRole('row').count()).toBe(3);
    await page.getByLabel('Recipient status').getByText('Failed', { exact: true }).click();
    await expect.poll(() => recipients.getByRole('row').count()).toBe(2);
    expect(await recipients.innerText()).toContain('451 4.7.1 try again later');
    await screenshot(page, 'campaign-recipients');
    // At phone width the tabs and the table fit: the table scrolls inside its frame, the page does not.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => recipients.getByText('451 4.7.1 try again later').count()).toBe(1);
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'phone-campaign-recipients', { fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole('tab', { name: 'Links' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Links' }).getByText('https://acme.example/spring').isVisible()).toBe(true);

    // Retry failed: Cy is sent again and the campaign ends SENT.
    await page.getByRole('button', { name: 'Retry failed (1)' }).click();
    await page.getByRole('dialog', { name: 'Send to the failed recipients again?' }).getByRole('button', { name: 'Retry' }).click();
    // Once a second: at the default 50 ms a slow send spends the plan's 60 requests a minute.
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}/recipients?status=SENT`)).totalElements, { timeout: 30_000, interval: 1_000 }).toBe(2);
    await expect.poll(() => page.getByLabel('Status SENT').isVisible(), { timeout: 30_000 }).toBe(true);

    // Follow up with non-openers: a new draft for them.
    await page.getByRole('button', { name: 'Follow up with non-openers' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Spring (follow-up)' }).isVisible()).toBe(true);
    expect(await page.getByText('who did not open it').isVisible()).toBe(true);
    // Ada and Cy were delivered and opened nothing.
    await expect.poll(() => page.getByText('About 2 subscribed recipients').isVisible()).toBe(true);
    await screenshot(page, 'campaign-follow-up');
  });
});
