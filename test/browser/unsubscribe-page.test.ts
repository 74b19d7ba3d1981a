/**
 * D17.1 in Chromium at phone width: the person who follows an unsubscribe link presses the page's
 * button and sees a confirmation (it was a blank white page), comes back to a page that says they
 * are unsubscribed, and subscribes again. The pages load nothing from elsewhere and run no script.
 */
import { describe, expect, it } from 'vitest';
import { tenant } from '../sending/send-helpers.ts';
import { haveChromium, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('D17.1: the unsubscribe page in a browser', () => {
  // Without SMTP_URL the messages go to the dev inbox; the sender must run to make recipients.
  const d = withDashboard({ start: (server) => server.sender.dispatcher.start() });

  it('D17.1: Unsubscribe answers a confirmation with the address; a second visit says so; Subscribe again works', { timeout: 120_000 }, async () => {
    const { server, browser } = d;
    const { page } = browser;
    const t = await tenant(server);
    // A long address with nowhere to break still fits a phone's width.
    const email = 'reader.with.a.rather.long.address.for.newsletters@mail.subdomain.example.com';
    const list = await t.list('Readers');
    await t.contact({ email, first_name: 'Rea', list_id: list });
    const campaign = await t.campaign({ subject: 'Hello', from_email: 'news@acme.test', from_name: 'Acme News', html: '<p>Hi</p>', list_ids: [list] });
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const row = await server.db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', campaign.id).executeTakeFirstOrThrow();
    // The token the message carried (the dev inbox holds it under PUBLIC_URL, not this server).
    const url = `${server.url}/u/${server.core.signer.sign({ kind: 'unsubscribe', recipientId: row.id })}`;
    const status = async () => (await t.getContact(email)).status;

    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(url);
    await expect.poll(() => page.getByRole('heading', { name: 'Unsubscribe?' }).isVisible()).toBe(true);
    expect(await page.getByText(`Stop e-mails from Acme News to ${email}?`).isVisible()).toBe(true);
    // Fits a phone: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'You are unsubscribed' }).isVisible()).toBe(true);
    expect(await page.getByText(`${email} will get no more e-mails from Acme News.`).isVisible()).toBe(true);
    expect(await status()).toBe('UNSUBSCRIBED');

    await page.goto(url);
    await expect.poll(() => page.getByRole('heading', { name: 'You are already unsubscribed' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Subscribe again' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'You are subscribed again' }).isVisible()).toBe(true);
    expect(await status()).toBe('SUBSCRIBED');

    // Only this server's page was fetched, and the page's policy was never violated.
    expect(browser.requested.filter((u) => !u.startsWith(`${server.url}/u/`))).toEqual([]);
    expect(browser.problems).toEqual([]);
  });
});
