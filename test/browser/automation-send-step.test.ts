/**
 * Issue 34 item 11 in a real browser, at 1280 and 390 px: a new automation offers "A contact joins
 * a list" first, in words; its e-mail step starts from a gallery template inside a layout, takes a
 * merge field of the triggering event's data from the merge tag menu, and the server's preview
 * shows it rendered with sample event data, with the content checks. Activated, a contact added to
 * the list gets the mail (the dev inbox) with the list's name merged in.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { choose, haveChromium, screenshot, signUp, withDashboard } from './browser.ts';

/** The option labels a combobox offers, read from its open dropdown. */
async function optionsOf(page: Page, label: string): Promise<string[]> {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  const options = page.getByRole('listbox').last().getByRole('option');
  await expect.poll(() => options.count(), WAIT).toBeGreaterThan(0);
  const texts = (await options.allInnerTexts()).map((t) => t.trim());
  await page.keyboard.press('Escape');
  return texts;
}

/** A busy machine (helpers and CI share two cores) renders and compiles slower than expect.poll's default second. */
const WAIT = { timeout: 30_000 };

const LAYOUT = 'Branded layout (slot between sections: for MJML content) (built-in)';

describe.skipIf(!haveChromium)('an automation e-mail written like a campaign (issue 34 item 11)', () => {
  const d = withDashboard({
    env: { SEND_POLL_MS: '50' },
    start: (s) => s.sender.automationRunner.start(), // as the sender role of `serve` does
  });

  it('joins-a-list first; a gallery template in a layout with an event merge field, previewed, then mailed with it merged', { timeout: 240_000 }, async () => {
    const { page } = d.browser;
    const email = await signUp(page, d.server.url);
    const user = await d.server.db.selectFrom('users').select('account_id').where('email', '=', email).executeTakeFirstOrThrow();
    const { key } = await d.server.createKey(Number(user.account_id), ['*']);
    const api = async (method: string, path: string, body?: unknown) => (await d.server.request(method, path, { key, body })).body.data;

    for (const [width, name, reader] of [
      [1280, 'desktop', 'Bea'],
      [390, 'phone', 'Cy'],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      const list = `Insiders ${name}`;
      await api('POST', '/api/v1/lists', { name: list });

      await page.goto(d.server.url + '/automations/new');
      await page.getByRole('textbox', { name: /^Automation name/ }).fill(`Welcome ${name}`);
      // The trigger a new automation starts with, and the first one offered, in words.
      await expect.poll(() => page.getByRole('combobox', { name: 'Trigger', exact: true }).inputValue(), WAIT).toBe('A contact joins a list');
      const triggers = await optionsOf(page, 'Trigger');
      expect(triggers[0]).toBe('A contact joins a list');
      expect(triggers.filter((t) => /\/v1|POST|[A-Z]{2,}_/.test(t))).toEqual([]);
      await choose(page, 'List', list);

      await choose(page, 'Step 1', 'Send an e-mail');
      const step = page.getByRole('region', { name: 'Step 1' }).or(page.locator('[aria-label="Step 1"]')).first();
      await step.getByRole('textbox', { name: /^Subject/ }).fill('Welcome to {{ event.list_name }}');
      await step.getByRole('textbox', { name: /^From e-mail/ }).fill('hello@acme.test');
      await choose(page, 'Start from a template', 'Welcome (gallery)');
      const source = step.getByRole('textbox', { name: 'MJML content' });
      await expect.poll(() => source.inputValue(), WAIT).toContain('Welcome, {{ first_name');
      await choose(page, 'Layout', LAYOUT);

      // A merge field of the event's data, from the merge tag menu, where the cursor is.
      const mjml = await source.inputValue();
      const at = mjml.indexOf('We are so glad you are here.');
      await source.evaluate((el, i) => (el as HTMLTextAreaElement).setSelectionRange(i, i), at);
      await source.evaluate((el) => (el as HTMLTextAreaElement).focus());
      await page.keyboard.type('You joined ');
      await step.getByRole('button', { name: 'Merge tag' }).click();
      await page.getByRole('menuitem', { name: 'list_name', exact: true }).click();
      await expect.poll(() => source.inputValue(), WAIT).toContain('You joined {{ event.list_name }}We are so glad');
      const after = at + 'You joined {{ event.list_name }}'.length;
      await source.evaluate((el, i) => (el as HTMLTextAreaElement).setSelectionRange(i, i), after);
      await source.evaluate((el) => (el as HTMLTextAreaElement).focus());
      await page.keyboard.type('. ');

      // The server's preview: the template in the layout, the sample contact and the list's name from the sample event data.
      const preview = page.frameLocator('iframe[title="Step 1 preview"]');
      await expect.poll(() => preview.getByText(`You joined ${list}. We are so glad`).isVisible(), { timeout: 60_000 }).toBe(true);
      expect(await preview.getByText('Welcome, Ann!').isVisible()).toBe(true);
      expect(await preview.getByText('Your brand').isVisible()).toBe(true); // the layout's header
      expect(await step.getByLabel('Inbox line').innerText()).toContain(`Welcome to ${list}`);
      const checks = step.getByTestId('content-checks');
      await expect.poll(() => checks.isVisible(), WAIT).toBe(true);
      expect(await checks.innerText()).toMatch(/^Checks: /);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      // On a phone, the message at a phone's width (the panel the campaign page shares).
      if (width === 390) {
        const frameWidth = () => page.locator('iframe[title="Step 1 preview"]').evaluate((el) => el.getBoundingClientRect().width);
        await step.locator('label', { hasText: /^Phone$/ }).click();
        await expect.poll(frameWidth, WAIT).toBeLessThanOrEqual(375);
      }
      // The picture: the preview with its inbox line, the rendered message and (below) the checks.
      await step.getByLabel('Inbox line').evaluate((el) => {
        el.scrollIntoView({ block: 'start' });
        window.scrollBy(0, -80); // below the page's header
      });
      await screenshot(page, `automation-send-step-${name}`);

      await page.getByRole('button', { name: 'Save automation' }).click();
      await expect.poll(() => page.getByRole('heading', { name: `Welcome ${name}` }).isVisible(), WAIT).toBe(true);
      await page.getByRole('button', { name: 'Activate' }).click();
      await expect.poll(() => page.getByRole('button', { name: 'Deactivate' }).isVisible(), WAIT).toBe(true);
      const saved = (await api('GET', '/api/v1/automations?size=100')).automations.find((a: { name: string }) => a.name === `Welcome ${name}`);
      expect(saved.trigger.type).toBe('LIST_JOINED');
      expect(saved.steps[0]).toMatchObject({ type: 'SEND_EMAIL', format: 'mjml', template_id: expect.any(Number) });

      // A contact joins the list: the mail arrives, the template in its layout with the list's name merged.
      const listId = (await api('GET', '/api/v1/lists?size=100')).lists.find((l: { name: string }) => l.name === list).id;
      const address = `${reader.toLowerCase()}-${name}@example.com`;
      await api('POST', '/api/v1/contacts', { email: address, first_name: reader });
      await api('POST', `/api/v1/lists/${listId}/contacts`, { emails: [address] });
      // The inbox lists what is there when it opens: the run has sent first.
      await expect.poll(async () => (await api('GET', `/api/v1/automations/${saved.id}/runs`)).runs[0]?.history[0]?.status, { timeout: 60_000, interval: 2_000 }).toBe('SENT');
      await page.goto(d.server.url + '/inbox');
      const subject = `Welcome to ${list}`;
      const message = page.getByRole('navigation', { name: 'Messages' }).getByText(subject);
      await expect.poll(() => message.isVisible(), { timeout: 30_000 }).toBe(true);
      await message.click();
      const mail = page.frameLocator(`iframe[title="Message: ${subject}"]`);
      await expect.poll(() => mail.getByText(`You joined ${list}. We are so glad`).isVisible(), WAIT).toBe(true);
      expect(await mail.getByText(`Welcome, ${reader}!`).isVisible()).toBe(true);
      expect(await mail.getByText('Your brand').isVisible()).toBe(true);
    }
    expect(d.browser.problems).toEqual([]);
  });
});
