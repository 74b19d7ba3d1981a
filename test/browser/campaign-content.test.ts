/**
 * D22 in a real browser: the campaign page's Format and Layout selects save and come back after a
 * reload, an MJML error shows beside them naming its line, and the checks appear before sending
 * (in the page and in the send confirmation).
 */
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('the campaign page: format, layout and checks (D22)', () => {
  const d = withDashboard();

  it('chooses a format and a layout, saves, reloads; shows an MJML error and the checks', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const accountId = Number(user.account_id);
    const { key } = await d.server.createKey(accountId, ['*']);
    const call = (method: string, path: string, body?: unknown) => d.server.request(method, path, { key, body });
    const layout = (await call('POST', '/api/v1/templates', { name: 'Brand frame', kind: 'layout', format: 'html', body: '<div style="border:2px solid #333">{{ content }}</div>' })).body.data;
    // A list with a reader: the send confirmation opens only for a campaign that can be sent (issue 34).
    const list = (await call('POST', '/api/v1/lists', { name: 'Readers' })).body.data;
    await call('POST', '/api/v1/contacts', { email: 'ada@example.com', list_id: list.id });
    const campaign = (await call('POST', '/api/v1/campaigns', { name: 'Formats', subject: 'Hi', from_email: 'news@acme.example', html: '<p>Hello there</p>', list_ids: [list.id] })).body.data;

    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    const checks = page.getByTestId('content-checks');
    await expect.poll(() => checks.textContent(), { timeout: 15_000 }).toContain('NO_UNSUBSCRIBE_LINK');
    expect(await checks.textContent()).toContain('NO_TEXT_PART');

    // Issue 34: written content's format changes after a question; the text stays as written.
    await choose(page, 'Format', 'Markdown');
    await page.getByRole('dialog', { name: 'Switch the content from HTML to Markdown?' }).getByRole('button', { name: 'Switch without converting' }).click();
    await choose(page, 'Layout', 'Brand frame');
    await page.getByRole('textbox', { name: /^Markdown content/ }).fill('# News\n\nRead [more](https://example.com/more) or [leave]({{ unsubscribe_url }}).');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(async () => (await call('GET', `/api/v1/campaigns/${campaign.id}`)).body.data).toMatchObject({ format: 'markdown', template_id: Number(layout.id) });
    // The checks follow the saved content: the layout-wrapped markdown has its unsubscribe link now.
    await expect.poll(() => checks.textContent()).not.toContain('NO_UNSUBSCRIBE_LINK');

    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: 'Format', exact: true }).inputValue(), { timeout: 15_000 }).toBe('Markdown');
    await expect.poll(() => page.getByRole('combobox', { name: 'Layout', exact: true }).inputValue()).toBe('Brand frame');

    // An MJML error is shown beside the selects, naming its line; nothing is saved.
    await choose(page, 'Format', 'MJML');
    await page.getByRole('dialog', { name: 'Switch the content from Markdown to MJML?' }).getByRole('button', { name: 'Switch without converting' }).click();
    await page.getByRole('textbox', { name: /^MJML content/ }).fill('<mjml>\n<mj-body>\n<mj-sektion></mj-sektion>\n</mj-body>\n</mjml>');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => page.getByTestId('content-error').textContent()).toMatch(/html line 3/);
    expect((await call('GET', `/api/v1/campaigns/${campaign.id}`)).body.data.format).toBe('markdown');
    await page.getByRole('combobox', { name: 'Format', exact: true }).scrollIntoViewIfNeeded();
    await page.mouse.wheel(0, -120);
    await screenshot(page, 'campaign-content-format-layout-checks');

    // The send confirmation repeats the warnings.
    await page.reload();
    await page.getByRole('button', { name: 'Send now' }).click();
    await expect.poll(() => page.getByTestId('send-checks').textContent()).toContain('NO_TEXT_PART');
  });
});
