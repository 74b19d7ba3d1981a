/**
 * Issue 15 in a real browser: the editor's preview shows a real contact's data (it showed raw
 * `{{ first_name }}`) and names a Liquid error as it is typed (D17.4); Duplicate copies a campaign
 * into a new draft; a FAILED campaign can be edited. D23: the editor sets the send window, and a
 * campaign the automatic stop failed shows why.
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('the campaign editor', () => {
  const d = withDashboard();

  /** The browser signed up once (a later sign-up waits for a confirmation mail), and API calls as that account. */
  let session: Promise<(method: string, path: string, body?: unknown) => Promise<any>> | undefined;
  const signedIn = () =>
    (session ??= (async () => {
      const email = await signUp(d.browser.page, d.server.url);
      const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
      const { key } = await d.server.createKey(Number(user.account_id), ['*']);
      return (method: string, path: string, body?: unknown) => d.server.request(method, path, { key, body }).then((r) => r.body.data);
    })());

  it('previews with the first list member, names a Liquid error, duplicates, and edits a FAILED campaign', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const call = await signedIn();
    const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
    await call('POST', '/api/v1/contacts', { email: 'ada@example.com', first_name: 'Ada', list_id: list.id });
    const campaign = await call('POST', '/api/v1/campaigns', {
      name: 'Autumn',
      subject: 'Hello {{ first_name }}',
      from_email: 'news@acme.example',
      html: '<h1>Dear {{ first_name }}</h1>',
      list_ids: [list.id],
    });

    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const preview = page.frameLocator('iframe[title="Campaign preview"]');
    // The server renders the preview on its test-send render thread, started on first use.
    await expect.poll(() => preview.getByRole('heading', { name: 'Dear Ada' }).isVisible(), { timeout: 15_000 }).toBe(true);
    const inbox = page.getByLabel('Inbox line');
    expect(await inbox.getByText('Hello Ada').isVisible()).toBe(true);
    expect(await inbox.getByText("With your list's first contact").isVisible()).toBe(true);

    // A typo shows in the preview's place, naming the field, before anything is saved. Raw HTML is typed in source mode (D22).
    await page.getByText('Source', { exact: true }).click();
    await page.getByRole('textbox', { name: /^HTML content/ }).fill('<h1>Dear {{ first_name </h1>');
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'html has a Liquid syntax error' }).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^HTML content/ }).fill('<h1>Dear {{ first_name }}!</h1>');
    await expect.poll(() => preview.getByRole('heading', { name: 'Dear Ada!' }).isVisible(), { timeout: 5_000 }).toBe(true);
    await screenshot(page, 'campaign-preview-merge-data');

    // Duplicate: a new draft, opened at once.
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Copy of Autumn' }).isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).not.toBe(`/campaigns/${campaign.id}`);

    // A FAILED campaign opens in the editor and saves.
    await d.server.db.updateTable('campaigns').set({ status: 'FAILED', error: 'the mail transport keeps failing' }).where('id', '=', campaign.id).execute();
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await expect.poll(() => page.getByText('the mail transport keeps failing').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^Subject/ }).fill('Fixed {{ first_name }}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).subject).toBe('Fixed {{ first_name }}');
    expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).status).toBe('FAILED');
  });

  it('sets a send window that runs past midnight, and shows why the automatic stop failed a campaign', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const call = await signedIn();
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Night owls', subject: 'Late news', from_email: 'news@acme.example', html: '<h1>Late</h1>' });

    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await page.getByRole('switch', { name: /^Send only within a window/ }).check();
    // Weekdays are offered first; Friday and Saturday nights only.
    for (const day of ['Mon', 'Tue', 'Wed', 'Thu']) await page.getByRole('checkbox', { name: day, exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'Sat', exact: true }).check();
    await page.getByLabel('From', { exact: true }).fill('22:00');
    await page.getByLabel('Until', { exact: true }).fill('06:00');
    await page.getByRole('combobox', { name: 'Time zone', exact: true }).fill('Europe/Ber');
    await page.getByRole('option', { name: 'Europe/Berlin', exact: true }).click();
    await expect.poll(() => page.getByText('the window runs past midnight into the next day').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).send_window).toEqual({ days: [5, 6], start: '22:00', end: '06:00', timezone: 'Europe/Berlin' });
    // Saving remounts the editor (it is keyed on updated_at), so its elements are replaced while
    // the reload lands; opening the page afresh waits for nothing and shows what was stored.
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const windowSwitch = page.getByRole('switch', { name: /^Send only within a window/ });
    await expect.poll(() => windowSwitch.isChecked()).toBe(true);
    await expect.poll(() => page.getByText('the window runs past midnight into the next day').isVisible()).toBe(true);
    await windowSwitch.scrollIntoViewIfNeeded();
    await screenshot(page, 'campaign-send-window');

    // The automatic stop's reason is what a FAILED campaign shows first.
    const reason = 'bounce rate 12.0% over the latest 500 messages (the limit is 8%)';
    await d.server.db.updateTable('campaigns').set({ status: 'FAILED', error: reason }).where('id', '=', campaign.id).execute();
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await expect.poll(() => page.getByText(reason).isVisible()).toBe(true);
    expect(await page.getByText('Why it failed').isVisible()).toBe(true);
    await screenshot(page, 'campaign-auto-stopped');
  });

  it('D26.2: a SENDING campaign outside its send window says why it waits and when it goes on', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const call = await signedIn();
    const list = await call('POST', '/api/v1/lists', { name: 'Night readers' });
    await call('POST', '/api/v1/contacts', { email: 'owl@example.com', list_id: list.id });
    // Every day, from two to three hours from now (UTC): it cannot include now.
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const later = { days: [1, 2, 3, 4, 5, 6, 7], start: hhmm(Date.now() + 7_200_000), end: hhmm(Date.now() + 10_800_000), timezone: 'UTC' };
    const campaign = await call('POST', '/api/v1/campaigns', { name: 'Night owls', subject: 'Late news', from_email: 'news@acme.example', html: '<p>Hi</p>', list_ids: [list.id], send_window: later });
    await call('POST', `/api/v1/campaigns/${campaign.id}/send`);
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).held?.reason).toBe('send_window');

    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const notice = page.getByRole('status', { name: 'Waiting' });
    await expect.poll(() => notice.isVisible()).toBe(true);
    expect(await notice.innerText()).toMatch(/outside its send window\. It goes on at /);
    await screenshot(page, 'campaign-held-send-window');
  });
});
