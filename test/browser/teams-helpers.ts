/** What the teams browser tests (D24.9) share: mailed links, signing in and out, the phone width. */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.ts';

export const PASSWORD = 'a long enough password';

/** The path of the last link to `path` mailed to `to` (captured by the dev inbox: no SMTP_URL). */
export async function mailedLink(server: TestServer, to: string, path: 'invite' | 'reset'): Promise<string> {
  let found: string | null = null;
  await expect
    .poll(async () => {
      const mails = await server.db.selectFrom('dev_inbox').select(['text', 'html']).where('to_address', '=', to).orderBy('id', 'desc').execute();
      for (const m of mails) {
        const match = new RegExp(`https?://[^\\s"'<>]+(/${path}/[A-Za-z0-9_-]+)`).exec(`${m.text ?? ''} ${m.html ?? ''}`);
        if (match) return (found = match[1]);
      }
      return null;
    })
    .not.toBeNull();
  return found!;
}

export async function signIn(page: Page, url: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(url + '/signin');
  await page.getByRole('textbox', { name: /^E-mail/ }).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

export async function signedIn(page: Page): Promise<void> {
  await expect.poll(() => page.getByRole('button', { name: 'Sign out', exact: true }).isVisible()).toBe(true);
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect.poll(() => page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).toBe(true);
}

/** Runs `shoot` at a phone's width (390 px), then goes back to the desktop's. */
export async function atPhoneWidth(page: Page, shoot: () => Promise<void>): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  // The navigation slides away at this width: the picture waits until it has (no nav: signed out).
  await expect
    .poll(() => page.evaluate(() => (document.querySelector('nav[aria-label="Main"]')?.getBoundingClientRect().right ?? 0) <= 0))
    .toBe(true);
  try {
    await shoot();
  } finally {
    await page.setViewportSize({ width: 1280, height: 860 });
  }
}
