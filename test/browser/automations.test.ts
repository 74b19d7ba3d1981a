/**
 * Issue 6 in a real browser: an automation built in the form (trigger: an event; steps: tag and
 * lead score), activated, then the event sent through the API and the run seen on the page (D15).
 */
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('automations page', () => {
  const d = withDashboard({
    env: { SEND_POLL_MS: '50' },
    start: (s) => s.sender.automationRunner.start(), // as the sender role of `serve` does
  });

  it('builds an automation triggered by an event and shows the run the event starts', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    await page.goto(d.server.url + '/automations');
    await expect.poll(() => page.getByText('No automations yet').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'New automation' }).click();

    await page.getByRole('textbox', { name: /^Automation name/ }).fill('Welcome buyers');
    // Issue 34: a new automation starts on "A contact joins a list"; an event is chosen in words.
    await choose(page, 'Trigger', 'Your app or site sends an event');
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
