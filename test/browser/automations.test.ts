/**
 * Issue 6 in a real browser: an automation built in the form (trigger: an event; steps: tag and
 * lead score), activated, then the event sent through the API and the run seen on the page (D15).
 */
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('automations page', () => {
  const d = withDashboard({
    env: { SEND_POLL_MS: '50' },
    start: (s) => s.deps.automationRunner.start(), // as the sender role of `serve` does
  });

  it('builds an automation triggered by an event and shows the run the event starts', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    await page.goto(d.server.url + '/automations');
    await expect.poll(() => page.getByText('No automations yet').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'New automation' }).click();

    await page.getByRole('textbox', { name: /^Automation name/ }).fill('Welcome buyers');
    await page.getByRole('textbox', { name: /^Event name/ }).fill('order_placed');
    await page.getByRole('textbox', { name: /^Tag/ }).fill('customer');
    await page.getByRole('button', { name: 'Add step' }).click();
    await choose(page, 'Step 2', 'Change the lead score');
    await page.getByRole('textbox', { name: /^Add \(negative to subtract\)/ }).fill('10');
    await page.getByRole('button', { name: 'Save automation' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Welcome buyers' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Activate' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Deactivate' }).isVisible()).toBe(true);
    expect(await page.getByText('No runs yet').isVisible()).toBe(true);

    // The event arrives through the integration API, with a key of this account.
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const event = await d.server.request('POST', '/v1/events', { key, body: { email: 'buyer@example.com', event: 'order_placed', data: { total: 42 } } });
    expect(event.status).toBe(202);

    const run = page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: 'buyer@example.com' });
    await expect.poll(() => run.getByText('COMPLETED').isVisible(), { timeout: 30_000 }).toBe(true);
    // Issue 15: the run's steps in words, not the API's names.
    expect(await run.innerText()).toMatch(/Add a tag: done.*Change the lead score: done/s);
    expect(await run.innerText()).not.toMatch(/ADD_TAG|UPDATE_LEAD_SCORE/);
    await screenshot(page, 'automation', { fullPage: true });

    const contact = await d.server.request('GET', '/api/v1/contacts/buyer%40example.com', { key });
    expect(contact.body.data).toMatchObject({ tags: ['customer'], lead_score: 10 });
    expect(d.browser.problems).toEqual([]);
  });
});

describe.skipIf(!haveChromium)('automation words (issue 15)', () => {
  const d = withDashboard();

  it('names lists, shows steps in words, and takes a wait in hours (stored in seconds)', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const list = (await d.server.request('POST', '/api/v1/lists', { key, body: { name: 'Newsletter' } })).body.data;

    await page.goto(d.server.url + '/automations/new');
    await page.getByRole('textbox', { name: /^Automation name/ }).fill('Nurture');
    await choose(page, 'Trigger', 'The contact joins a list');
    await choose(page, 'List', 'Newsletter');
    await choose(page, 'Step 1', 'Wait');
    await page.getByRole('textbox', { name: /^Wait for/ }).fill('2');
    await choose(page, 'Unit', 'hours');
    await page.getByRole('button', { name: 'Add step' }).click();
    await choose(page, 'Step 2', 'Add to a list');
    await page.getByRole('combobox', { name: 'List' }).last().click();
    await page.getByRole('option', { name: 'Newsletter', exact: true }).click();
    await page.getByRole('button', { name: 'Save automation' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Nurture' }).isVisible()).toBe(true);

    const saved = (await d.server.request('GET', '/api/v1/automations', { key })).body.data.automations[0];
    expect(saved.trigger).toMatchObject({ type: 'LIST_JOINED', list_id: list.id });
    expect(saved.steps[0]).toEqual({ type: 'WAIT', seconds: 7200 });

    // Opened again, the wait reads 2 hours; the list page says it in words.
    await page.reload();
    await expect.poll(() => page.getByRole('textbox', { name: /^Wait for/ }).inputValue()).toBe('2');
    expect(await page.getByRole('combobox', { name: 'Unit' }).inputValue()).toBe('hours');
    await page.goto(d.server.url + '/automations');
    const row = page.getByRole('row').filter({ hasText: 'Nurture' });
    await expect.poll(() => row.isVisible()).toBe(true);
    const text = await row.innerText();
    expect(text).toContain('Joins the list “Newsletter”');
    expect(text).toContain('Wait 2 hours → Add to the list “Newsletter”');
    expect(text).not.toMatch(/#\d|SEND_EMAIL|WAIT|ADD_TO_LIST/);
  });
});
