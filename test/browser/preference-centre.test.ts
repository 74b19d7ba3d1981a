/**
 * D20's preference centre in Chromium at phone width: the person ticks and unticks lists and
 * saves, downloads their data (D21), and erases it after saying yes. The pages load nothing from
 * elsewhere and run no script.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tenant } from '../sending/send-helpers.ts';
import { haveChromium, screenshot, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('D20: the preference centre in a browser', () => {
  // Without SMTP_URL the messages go to the dev inbox; the sender must run to make recipients.
  const d = withDashboard({ start: (server) => server.sender.dispatcher.start() });

  it('D20, D21: choosing lists, downloading and erasing, on a phone', { timeout: 120_000 }, async () => {
    const { server, browser } = d;
    const { page } = browser;
    const t = await tenant(server);
    const email = 'reader.with.a.rather.long.address.for.newsletters@mail.subdomain.example.com';
    const news = await t.list('Weekly news');
    const offers = await t.list('Offers and discounts');
    const internal = await t.list('Staff only');
    expect((await t.call('PUT', `/api/v1/lists/${news}`, { is_public: true, description: 'What happened this week, every Friday' })).status).toBe(200);
    expect((await t.call('PUT', `/api/v1/lists/${offers}`, { is_public: true, description: 'At most twice a month' })).status).toBe(200);
    await t.contact({ email, first_name: 'Rea', list_id: news });
    await t.addToList(internal, [email]);
    const campaign = await t.campaign({ subject: 'Hello', from_email: 'news@acme.test', from_name: 'Acme News', html: '<p>Hi</p>', list_ids: [news] });
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const row = await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', campaign.id).executeTakeFirstOrThrow();
    // The token the message carried (the dev inbox holds it under PUBLIC_URL, not this server).
    const url = `${server.url}/p/${server.core.signer.sign({ kind: 'preferences', recipientId: row.id })}`;
    const memberships = async () => Object.fromEntries(((await t.getContact(email)).memberships as { list_id: number; status: string }[]).map((m) => [m.list_id, m.status]));

    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(url);
    await expect.poll(() => page.getByRole('heading', { name: 'Your subscriptions' }).isVisible()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /Weekly news/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /Offers and discounts/ }).isChecked()).toBe(false);
    expect(await page.getByText('Staff only').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await page.getByRole('checkbox', { name: /Offers and discounts/ }).check();
    await page.getByRole('checkbox', { name: /Weekly news/ }).uncheck();
    await page.getByRole('button', { name: 'Save my choices' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toBe('Your choices are saved.');
    expect(await page.getByRole('checkbox', { name: /Offers and discounts/ }).isChecked()).toBe(true);
    expect(await memberships()).toEqual({ [news]: 'UNSUBSCRIBED', [offers]: 'SUBSCRIBED', [internal]: 'SUBSCRIBED' });
    await screenshot(page, 'phone-preference-centre', { fullPage: true });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    expect(download.suggestedFilename()).toBe('personal-data.json');
    const saved = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(saved.contact.email).toBe(email);
    expect(saved.campaigns).toEqual([expect.objectContaining({ campaign_id: campaign.id })]);

    await page.getByRole('button', { name: 'Erase my data' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Erase your data?' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'No, go back' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Your subscriptions' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Erase my data' }).click();
    await page.getByRole('button', { name: 'Yes, erase my data' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Your data is erased' }).isVisible()).toBe(true);
    expect((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(email)}`)).status).toBe(404);

    // Only this server's page was fetched, and the page's policy was never violated.
    expect(browser.requested.filter((u) => !u.startsWith(url))).toEqual([]);
    expect(browser.problems).toEqual([]);
  });
});
