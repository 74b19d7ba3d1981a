/**
 * D21 in the dashboard: the contact page downloads the person's data as one JSON file (the API's
 * export document) and erases it after a dialog that names what erasing does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('contact page: personal data (D21)', () => {
  const d = withDashboard();

  it('downloads the export document, and erases after confirming', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const owner = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', owner).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const api = (method: string, path: string, body?: unknown) => d.server.request(method, path, { key, body });
    const list = (await api('POST', '/api/v1/lists', { name: 'Newsletter' })).body.data.id;
    expect((await api('POST', '/api/v1/contacts', { email: 'dora@example.com', first_name: 'Dora', tags: ['vip'], list_id: list })).status).toBe(200);
    expect((await api('POST', '/v1/events', { email: 'dora@example.com', event: 'signed-up', data: { plan: 'pro' } })).status).toBe(202);

    await page.goto(d.server.url + '/contacts/dora%40example.com');
    await expect.poll(() => page.getByRole('heading', { name: 'dora@example.com' }).isVisible()).toBe(true);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download data' }).click()]);
    expect(download.suggestedFilename()).toBe('personal-data-dora@example.com.json');
    const saved = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(saved).toEqual((await api('GET', '/api/v1/contacts/dora%40example.com/export')).body.data);
    expect(saved.events).toEqual([expect.objectContaining({ name: 'signed-up', data: { plan: 'pro' } })]);

    await page.getByRole('button', { name: 'Erase personal data' }).click();
    const dialog = page.getByRole('dialog', { name: "Erase this person's data?" });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    const said = await dialog.innerText();
    for (const words of ['dora@example.com', 'keep their statistics', 'never mailed again', 'double opt-in', 'cannot be undone']) expect(said).toContain(words);
    await screenshot(page, 'contact-erase');
    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', '/api/v1/contacts/dora%40example.com')).status).toBe(200);

    await page.getByRole('button', { name: 'Erase personal data' }).click();
    await dialog.getByRole('button', { name: 'Erase for good' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/contacts');
    expect((await api('GET', '/api/v1/contacts/dora%40example.com')).status).toBe(404);
    const entries = (await api('GET', '/api/v1/suppressions')).body.data.suppressions;
    expect(entries).toEqual([expect.objectContaining({ value: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), source: 'ERASURE' })]);

    // D26.6: added again, the contact is back, and its page says it will not be mailed.
    const again = await api('POST', '/api/v1/contacts', { email: 'dora@example.com', list_id: list });
    expect(again.body.warnings).toEqual([expect.stringContaining('erasure')]);
    await page.goto(d.server.url + '/contacts/dora%40example.com');
    const notice = page.getByRole('status').filter({ hasText: 'Not mailed' });
    await expect.poll(() => notice.isVisible()).toBe(true);
    expect(await notice.getByText('Erased on request').isVisible()).toBe(true);
    await screenshot(page, 'contact-erased-came-back');
    expect(d.browser.problems).toEqual([]);
  });
});
