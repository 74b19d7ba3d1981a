/**
 * D23's sending domains in a real browser: add a domain, copy the records to publish, verify
 * before and after they are published (a test DNS server the API asks through DNS_SERVERS), and
 * set the warm-up plan, with today's cap shown.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startDnsServer } from '../helpers/dns-server.ts';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

const dns = await startDnsServer();
afterAll(() => dns.close());

describe.skipIf(!haveChromium)('sending domains page', () => {
  const d = withDashboard({ env: { DNS_SERVERS: dns.address } });

  it('adds a domain, copies its records, verifies what is missing then what is published, and sets the warm-up plan', { timeout: 120_000 }, async () => {
    const { page, context } = d.browser;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.server.url });
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['campaigns.read']);

    await page.goto(d.server.url + '/settings/domains');
    await expect.poll(() => page.getByText('No sending domains yet.').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^Domain/ }).fill('News.Example.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('region', { name: 'news.example.test' });
    await expect.poll(() => card.isVisible(), { timeout: 15_000 }).toBe(true);

    const [domain] = (await d.server.request('GET', '/api/v1/domains', { key })).body.data.domains;
    const dkim = domain.records[0];
    const records = card.getByRole('table', { name: 'DNS records for news.example.test' });
    expect(await records.getByRole('row').count()).toBe(4);
    expect(await records.getByRole('row', { name: /^DKIM/ }).innerText()).toContain(dkim.name);
    await card.getByRole('button', { name: 'Copy the DKIM value' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(dkim.value);

    // Nothing published yet: the check says what is missing.
    await card.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => card.getByText('DKIM missing').isVisible()).toBe(true);
    expect(await records.getByText('Missing: nothing published').count()).toBe(3);

    for (const r of domain.records) dns.setTxt(r.name, r.value);
    await card.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => card.getByText('DKIM verified').isVisible()).toBe(true);
    expect(await card.getByText('SPF ok').isVisible()).toBe(true);
    expect(await card.getByText('DMARC ok').isVisible()).toBe(true);
    expect(await records.getByText('Missing: nothing published').count()).toBe(0);

    // The warm-up plan: on, 20 on day 1, growing 1.5 times a day; today's cap shows.
    const plan = card.getByRole('form', { name: 'Warm-up plan for news.example.test' });
    // Mantine's switch input is visually hidden; people click its track.
    await plan.locator('.mantine-Switch-track').click();
    await plan.getByRole('textbox', { name: 'Messages on day 1' }).fill('20');
    await plan.getByRole('button', { name: 'Save plan' }).click();
    await expect.poll(() => plan.getByLabel("Today's warm-up").innerText()).toMatch(/^Today: 0 of 20 messages sent/);
    const saved = (await d.server.request('GET', `/api/v1/domains/${domain.id}`, { key })).body.data;
    expect(saved).toMatchObject({ dkim_verified: true, warmup: { enabled: true, start: 20, factor: 1.5 }, warmup_cap_today: 20, sent_today: 0 });
    await screenshot(page, 'sending-domains', { fullPage: true });
  });
});
