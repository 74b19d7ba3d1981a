/**
 * Issue 15 in a real browser: the automation pages said SEND_EMAIL, "Joins list #2" and waited in
 * seconds. They now use words, list names, and waits in minutes, hours or days, while the API
 * keeps its step names and its seconds (D15): every wait saved in the page is read back through
 * the API.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, signUp, withDashboard } from './browser.ts';

/** The option labels a combobox offers, read from its open dropdown. */
async function optionsOf(page: Page, label: string): Promise<string[]> {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  const options = page.getByRole('listbox').last().getByRole('option');
  await expect.poll(() => options.count()).toBeGreaterThan(0);
  const texts = (await options.allInnerTexts()).map((t) => t.trim());
  await page.keyboard.press('Escape');
  return texts;
}

describe.skipIf(!haveChromium)('automation words (issue 15)', () => {
  const d = withDashboard();
  let key = '';
  let listId = 0;
  const api = async (method: string, path: string, body?: unknown) => (await d.server.request(method, path, { key, body })).body.data;

  it('the editor offers steps and tests in words, lists by name, waits in minutes, hours or days; a 2-hour wait is stored as 7200 seconds', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    key = (await d.server.createKey(Number(user.account_id), ['*'])).key;
    listId = (await api('POST', '/api/v1/lists', { name: 'Newsletter' })).id;

    await page.goto(d.server.url + '/automations/new');
    await page.getByRole('textbox', { name: /^Automation name/ }).fill('Nurture');
    const stepTypes = await optionsOf(page, 'Step 1');
    expect(stepTypes).toContain('Send an e-mail');
    expect(stepTypes).toContain('Continue only if…');
    expect(stepTypes.filter((t) => /^[A-Z_]+$/.test(t))).toEqual([]);

    await choose(page, 'Trigger', 'A contact joins a list');
    expect(await optionsOf(page, 'List')).toEqual(['Newsletter']);
    await choose(page, 'List', 'Newsletter');
    await choose(page, 'Step 1', 'Wait');
    expect(await optionsOf(page, 'Unit')).toEqual(['minutes', 'hours', 'days']);
    await page.getByRole('textbox', { name: /^Wait for/ }).fill('2');
    await choose(page, 'Unit', 'hours');
    await page.getByRole('button', { name: 'Add step' }).click();
    await choose(page, 'Step 2', 'Continue only if…');
    expect(await optionsOf(page, 'Test')).toEqual(['contains', 'is', 'is not', 'is at least', 'is at most', 'is set']);
    await choose(page, 'Step 2', 'Add to a list');
    await page.getByRole('combobox', { name: 'List' }).last().click();
    await page.getByRole('option', { name: 'Newsletter', exact: true }).click();
    await page.getByRole('button', { name: 'Save automation' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Nurture' }).isVisible()).toBe(true);

    const saved = (await api('GET', '/api/v1/automations')).automations[0];
    expect(saved.trigger).toMatchObject({ type: 'LIST_JOINED', list_id: listId });
    expect(saved.steps[0]).toEqual({ type: 'WAIT', seconds: 7200 });
    expect(saved.steps[1]).toEqual({ type: 'ADD_TO_LIST', list_id: listId });

    // Opened again, the wait reads 2 hours; the list page says it all in words.
    await page.reload();
    await expect.poll(() => page.getByRole('textbox', { name: /^Wait for/ }).inputValue()).toBe('2');
    expect(await page.getByRole('combobox', { name: 'Unit' }).inputValue()).toBe('hours');
    await page.goto(d.server.url + '/automations');
    const row = page.getByRole('row').filter({ hasText: 'Nurture' });
    await expect.poll(() => row.isVisible()).toBe(true);
    const text = await row.innerText();
    expect(text).toContain('Joins the list “Newsletter”');
    expect(text).toContain('Wait 2 hours → Add to the list “Newsletter”');
    expect(text).not.toMatch(/#\d|SEND_EMAIL|WAIT|ADD_TO_LIST|LIST_JOINED/);
  });

  it("waits set through the API in seconds show as minutes and days; one changed in the page is stored in the API's seconds", { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const created = await api('POST', '/api/v1/automations', {
      name: 'Welcome series',
      trigger: { type: 'LIST_JOINED', list_id: listId },
      steps: [
        { type: 'SEND_EMAIL', subject: 'Welcome aboard', html: '<p>Hi</p>', from_email: 'team@example.com' },
        { type: 'WAIT', seconds: 5400 },
        { type: 'WAIT', seconds: 172_800 },
      ],
    });

    await page.goto(d.server.url + '/automations');
    const row = page.getByRole('row').filter({ hasText: 'Welcome series' });
    await expect.poll(() => row.isVisible()).toBe(true);
    await expect.poll(() => row.innerText()).toContain('Joins the list “Newsletter”');
    expect(await row.innerText()).toContain('Send an e-mail “Welcome aboard” → Wait 90 minutes → Wait 2 days');

    await page.goto(d.server.url + `/automations/${created.id}`);
    await expect.poll(() => page.getByRole('textbox', { name: /^Wait for/ }).first().inputValue()).toBe('90');
    expect(await page.getByRole('combobox', { name: 'Unit' }).first().inputValue()).toBe('minutes');
    expect(await page.getByRole('textbox', { name: /^Wait for/ }).nth(1).inputValue()).toBe('2');
    expect(await page.getByRole('combobox', { name: 'Unit' }).nth(1).inputValue()).toBe('days');
    expect(await page.getByRole('combobox', { name: 'Step 1', exact: true }).inputValue()).toBe('Send an e-mail');

    await page.getByRole('textbox', { name: /^Wait for/ }).nth(1).fill('3');
    await page.getByRole('button', { name: 'Save automation' }).click();
    await expect.poll(async () => (await api('GET', `/api/v1/automations/${created.id}`)).steps[2]).toEqual({ type: 'WAIT', seconds: 259_200 });
    expect((await api('GET', `/api/v1/automations/${created.id}`)).steps[1]).toEqual({ type: 'WAIT', seconds: 5400 });
  });
});
