/**
 * Issue 34 item 13 in Chromium: the Lists page says what Public and Active mean, and lets the
 * account choose which custom fields a contact may edit (with their types); the preference centre
 * then lets the person change their own name and those fields, at 390 and 1280 px.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe.skipIf(!haveChromium)('issue 34: what a contact can edit, in the browser', () => {
  const d = withDashboard({ start: (server) => server.sender.dispatcher.start() });

  it('the Lists page explains Public and Active and sets the editable fields; the person edits their name and those fields', { timeout: 180_000 }, async () => {
    const { server, browser } = d;
    const { page, problems } = browser;
    const { call } = await signUpWithApi(d);
    const news = await call('POST', '/api/v1/lists', { name: 'Weekly news', is_public: true });
    const email = 'reader@example.com';
    await call('POST', '/api/v1/contacts', { email, first_name: 'Rea', last_name: 'Der', list_id: news.id, custom_fields: { company: 'Old Co', employees: 10, likes_cats: false, lead_tier: 'gold' } });

    // The dialog says what the switches mean, in words.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(server.url + '/lists');
    await page.getByRole('button', { name: 'Edit Weekly news' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByText(/Subscribers see this list in their preference centre and can join or leave it there/).isVisible()).toBe(true);
    expect(await dialog.getByText(/A marker for your team/).isVisible()).toBe(true);
    await dialog.getByRole('switch', { name: /^Public/ }).uncheck();
    await expect.poll(() => dialog.getByText(/Private: subscribers never see this list, and forms cannot use it/).isVisible()).toBe(true);
    await screenshot(page, 'list-dialog-words-desktop');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // The account chooses what contacts may edit.
    const card = page.getByLabel('Preference centre fields', { exact: true });
    await expect.poll(() => card.getByText('likes_cats').isVisible()).toBe(true);
    // The type a key's values have is offered first.
    expect(await card.getByRole('combobox', { name: 'Type of employees' }).inputValue()).toBe('Number');
    await card.getByRole('switch', { name: 'Contacts can edit company' }).check();
    await card.getByRole('textbox', { name: 'Label of company' }).fill('Your company');
    await card.getByRole('switch', { name: 'Contacts can edit employees' }).check();
    await card.getByRole('switch', { name: 'Contacts can edit likes_cats' }).check();
    await choose(page, 'Type of likes_cats', 'Yes / no');
    await card.getByRole('button', { name: 'Save fields' }).click();
    await expect.poll(() => card.getByRole('status').filter({ hasText: 'Fields saved.' }).isVisible()).toBe(true);
    const defined = (await call('GET', '/api/v1/contacts/custom-fields')).custom_fields;
    expect(defined).toEqual([
      expect.objectContaining({ key: 'company', type: 'text', label: 'Your company', editable_by_contact: true }),
      expect.objectContaining({ key: 'employees', type: 'number', editable_by_contact: true }),
      expect.objectContaining({ key: 'likes_cats', type: 'boolean', editable_by_contact: true }),
    ]);
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'preference-fields-desktop', { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => fitsTheScreen(page)).toBe(true);
    await screenshot(page, 'preference-fields-phone', { fullPage: true });

    // A campaign to the person: its preference link is the one the page is reached by.
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Hello', subject: 'Hello', from_email: 'news@acme.test', from_name: 'Acme News', html: '<p>Hi</p>', list_ids: [news.id] });
    await call('POST', `/api/v1/campaigns/${campaign.id}/send`);
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).status, { timeout: 60_000, interval: 2_000 }).toBe('SENT');
    const row = await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', campaign.id).executeTakeFirstOrThrow();
    const url = `${server.url}/p/${server.core.signer.sign({ kind: 'preferences', recipientId: row.id })}`;

    for (const [width, height, name] of [[390, 844, 'phone'], [1280, 900, 'desktop']] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(url);
      const details = page.getByRole('form', { name: 'Your details' });
      await expect.poll(() => details.getByRole('textbox', { name: 'First name' }).isVisible()).toBe(true);
      expect(await details.getByRole('textbox', { name: 'Your company' }).inputValue()).toBe(name === 'phone' ? 'Old Co' : 'Ada & Co');
      // Only what the account lets the person edit is there.
      expect(await page.getByText('lead_tier').count()).toBe(0);
      expect(await page.getByRole('textbox', { name: /mail/i }).count()).toBe(0);
      expect(await fitsTheScreen(page)).toBe(true);
      await screenshot(page, `preference-centre-fields-${name}`, { fullPage: true });
      if (name === 'desktop') break;
      await details.getByRole('textbox', { name: 'First name' }).fill('Ada');
      await details.getByRole('textbox', { name: 'Your company' }).fill('Ada & Co');
      await details.getByRole('spinbutton', { name: 'Employees' }).fill('12');
      await details.getByRole('checkbox', { name: 'Likes cats' }).check();
      await details.getByRole('button', { name: 'Save my details' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Your details are saved.' }).isVisible()).toBe(true);
    }
    expect(await call('GET', `/api/v1/contacts/${email}`)).toMatchObject({
      email,
      first_name: 'Ada',
      last_name: 'Der',
      custom_fields: { company: 'Ada & Co', employees: 12, likes_cats: true, lead_tier: 'gold' },
    });
    expect(problems).toEqual([]);
  });
});
