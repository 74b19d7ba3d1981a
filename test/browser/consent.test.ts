/**
 * D20 in a real browser: a list made double opt-in and public with its own confirmation mail;
 * a contact's page showing each membership's status and the consent records; and, at phone
 * width, the confirmation link's page, whose button confirms (GET alone changes nothing).
 */
import { describe, expect, it } from 'vitest';
import { haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

describe.skipIf(!haveChromium)('D20 consent in the dashboard and the confirmation page', () => {
  const d = withDashboard();

  it('makes a list double opt-in and public, shows memberships and consent, and confirms on a phone', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    const { call } = await signUpWithApi(d);

    await page.goto(d.server.url + '/lists');
    await page.getByRole('button', { name: 'New list' }).click();
    const dialog = page.getByRole('dialog', { name: 'New list' });
    await dialog.getByRole('textbox', { name: /^List name/ }).fill('Newsletter');
    await dialog.getByText('Double', { exact: true }).click();
    await dialog.getByRole('switch', { name: /^Public/ }).check();
    await dialog.getByRole('textbox', { name: 'Confirmation mail subject' }).fill('One click to join');
    await dialog.getByRole('textbox', { name: /^Confirmation mail text/ }).fill('Almost there!\n\nConfirm here: {{ confirm_url }}');
    await screenshot(page, 'list-double-opt-in');
    await dialog.getByRole('button', { name: 'Save list' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Newsletter' });
    await expect.poll(() => row.isVisible()).toBe(true);
    expect(await row.getByText('Double opt-in').isVisible()).toBe(true);
    expect(await row.getByText('Public').isVisible()).toBe(true);
    const [list] = (await call('GET', '/api/v1/lists')).lists;
    expect(list).toMatchObject({ name: 'Newsletter', opt_in: 'double', is_public: true, confirmation_subject: 'One click to join', confirmation_text: 'Almost there!\n\nConfirm here: {{ confirm_url }}' });

    // A bad confirmation text is refused with the API's message, naming the field.
    await row.getByRole('button', { name: 'Edit Newsletter' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit “Newsletter”' });
    await edit.getByRole('textbox', { name: /^Confirmation mail text/ }).fill('No link at all');
    await edit.getByRole('button', { name: 'Save list' }).click();
    await expect.poll(() => edit.getByText(/confirmation_text must hold/).isVisible()).toBe(true);
    await edit.getByRole('button', { name: 'Cancel' }).click();

    const other = (await call('POST', '/api/v1/lists', { name: 'Offers' })).id;
    const email = 'dana@example.com';
    const contact = await call('POST', '/api/v1/contacts', { email, list_id: list.id, double_opt_in: true });
    await call('POST', `/api/v1/lists/${other}/contacts`, { emails: [email] });
    expect(contact.memberships).toEqual([{ list_id: list.id, status: 'UNCONFIRMED' }]);

    await page.goto(`${d.server.url}/contacts/${encodeURIComponent(email)}`);
    const memberships = page.getByRole('table', { name: 'List memberships' });
    await expect.poll(() => memberships.getByRole('row').filter({ hasText: 'Newsletter' }).getByText('Waiting for confirmation').isVisible()).toBe(true);
    expect(await memberships.getByRole('row').filter({ hasText: 'Offers' }).getByText('Subscribed').isVisible()).toBe(true);

    // The person opens the link on a phone: the page asks; nothing changes until the button.
    const url = `${d.server.url}/c/${d.server.core.signer.sign({ kind: 'confirm', contactId: contact.id })}`;
    const phone = await d.browser.context.newPage();
    await phone.setViewportSize({ width: 360, height: 740 });
    await phone.goto(url);
    await expect.poll(() => phone.getByRole('heading', { name: 'Confirm your subscription' }).isVisible()).toBe(true);
    expect(await phone.getByText(`${email} asked to get e-mails from Acme Inc.: Newsletter.`).isVisible()).toBe(true);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshot(phone, 'confirm-subscription');
    expect((await call('GET', `/api/v1/contacts/${encodeURIComponent(email)}`)).memberships).toContainEqual({ list_id: list.id, status: 'UNCONFIRMED' });
    await phone.getByRole('button', { name: 'Confirm my subscription' }).click();
    await expect.poll(() => phone.getByRole('heading', { name: 'Thank you: your subscription is confirmed' }).isVisible()).toBe(true);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await phone.close();

    await page.reload();
    await expect.poll(() => memberships.getByRole('row').filter({ hasText: 'Newsletter' }).getByText('Subscribed').isVisible()).toBe(true);
    const consent = page.getByRole('table', { name: 'Consent records' });
    await expect.poll(() => consent.getByRole('row').count()).toBe(4);
    const rows = await consent.getByRole('row').allInnerTexts();
    expect(rows[1]).toContain('API');
    expect(rows[1]).toContain('Newsletter');
    expect(rows[3]).toContain('Confirmed by e-mail');
    expect(rows[3]).toContain('127.0.0.1');
    expect(rows[3]).toContain('Chrome');
    await screenshot(page, 'contact-consent', { fullPage: true });

    // A sign-up by form names the form, linked to it; once the form is deleted, its id (D20 keeps it).
    const form = await call('POST', '/api/v1/forms', { name: 'Footer form', list_ids: [list.id], fields: [{ name: 'email', label: 'E-mail' }] });
    const signUp = await fetch(`${d.server.url}/f/${form.uid}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ email: 'erin@example.com' }) });
    expect(signUp.status).toBe(200);
    await page.goto(`${d.server.url}/contacts/${encodeURIComponent('erin@example.com')}`);
    await expect.poll(() => consent.getByRole('link', { name: 'Footer form' }).isVisible()).toBe(true);
    expect(await consent.getByRole('link', { name: 'Footer form' }).getAttribute('href')).toBe(`/forms/${form.id}`);
    await call('DELETE', `/api/v1/forms/${form.id}`);
    await page.reload();
    await expect.poll(() => consent.getByText(`Deleted form ${form.id}`).isVisible()).toBe(true);
    expect(d.browser.problems).toEqual([]);
  });
});
