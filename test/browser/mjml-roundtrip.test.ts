/**
 * Issue 33's promise for the visual MJML editor, proven on every built-in template: once a design
 * is changed in the editor, the whole document it writes back compiles (on the server, the only
 * compiler) to the same message as the source it was given. Each built-in is opened in the real
 * editor, a block is moved down and up again (a real change and its reversal, not Undo, so the
 * editor exports its document instead of keeping the original text) and saved from the dialog.
 * The stored source must differ as text and compile to the same HTML.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { firstDifference, sameHtml } from '../../web/src/html-equivalence.ts';
import { ownPublicUrl } from '../helpers/server.ts';
import { haveChromium, signUpWithApi, withDashboard } from './browser.ts';

// D26.4: the built-ins' pictures are on PUBLIC_URL, which is this server
const publicUrl = await ownPublicUrl();

interface Template {
  id: number;
  name: string;
  kind: 'starter' | 'layout';
  format: string;
  body: string;
  builtin: boolean;
  html: string;
}

const STARTERS = ['Newsletter', 'Announcement', 'Product showcase', 'Welcome', 'Event invitation', 'Plain letter'];
const LAYOUTS = ['Simple layout (slot in a text block: for HTML or Markdown content)', 'Branded layout (slot between sections: for MJML content)'];

/**
 * Opens the visual editor on the page, moves a block down and back up, and saves from the dialog.
 * The block is the first section of the body that can move down.
 */
async function moveABlockAndBack(page: Page, title: string): Promise<void> {
  await page.getByRole('button', { name: 'Edit visually' }).click();
  const dialog = page.getByRole('dialog', { name: title });
  await expect.poll(() => dialog.isVisible(), { timeout: 30_000 }).toBe(true);
  const canvas = page.frameLocator('.mjml-editor-canvas iframe.gjs-frame').locator('body');
  // the canvas draws the design's blocks once the editor has loaded it
  await expect.poll(() => canvas.locator('[data-gjs-type="mj-section"]').count(), { timeout: 30_000 }).toBeGreaterThan(0);
  /** The canvas's blocks in order, each by its type and words: a moved block changes it. */
  const drawn = () => canvas.evaluate((body) => [...body.querySelectorAll('[data-gjs-type]')].map((el) => `${el.getAttribute('data-gjs-type')}:${el.textContent?.trim().slice(0, 40)}`).join('|'));

  // A section is picked on the canvas as with the mouse, by its top edge (its padding, not a
  // block inside it); the first one that moves down when asked is moved. (The keyboard's way
  // through the design is mjml-editor-keyboard.test.ts's.)
  const sections = canvas.locator('[data-gjs-type="mj-body"] [data-gjs-type="mj-section"]');
  let moved = false;
  for (let at = 0; at < (await sections.count()) && !moved; at++) {
    const section = sections.nth(at);
    const box = await section.boundingBox();
    await section.click({ position: { x: (box?.width ?? 0) / 2, y: 2 } });
    await expect.poll(() => canvas.locator('.gjs-selected').count()).toBe(1);
    const before = await drawn();
    await dialog.getByRole('button', { name: 'Move down', exact: true }).click();
    moved = (await drawn()) !== before;
  }
  expect(moved, 'no block of the design could be moved down').toBe(true);
  await dialog.getByRole('button', { name: 'Move up', exact: true }).click();

  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect.poll(() => dialog.getByRole('status').textContent()).toBe('Saved.');
  await dialog.getByRole('button', { name: 'Done', exact: true }).click();
  await expect.poll(() => dialog.count()).toBe(0);
}

/** The same message before and after, or the first place the compiled HTML differs. */
function expectSameMessage(before: string, after: string): void {
  expect(sameHtml(before, after), firstDifference(before, after) ?? '').toBe(true);
}

describe.skipIf(!haveChromium)('Issue 33: every built-in survives a change in the visual editor', () => {
  const d = withDashboard({ env: publicUrl });
  let account: Awaited<ReturnType<typeof signUpWithApi>> | undefined;
  const signedIn = async () => (account ??= await signUpWithApi(d));
  const builtin = async (name: string): Promise<Template> => {
    const { call } = await signedIn();
    const page = (await call('GET', '/api/v1/templates?size=100')) as { templates: Template[] };
    const found = page.templates.find((t) => t.builtin && t.name === name);
    if (!found) throw new Error(`no built-in template named ${name}`);
    expect(found.format).toBe('mjml');
    return found;
  };

  it('knows every built-in: the six starters and the two layouts', { timeout: 60_000 }, async () => {
    const { call } = await signedIn();
    const page = (await call('GET', '/api/v1/templates?size=100')) as { templates: Template[] };
    const builtins = page.templates.filter((t) => t.builtin);
    expect(builtins.filter((t) => t.kind === 'starter').map((t) => t.name).sort()).toEqual([...STARTERS].sort());
    expect(builtins.filter((t) => t.kind === 'layout').map((t) => t.name).sort()).toEqual([...LAYOUTS].sort());
  });

  it.each(STARTERS)('starter %s: a campaign moved and moved back compiles to the same message', { timeout: 120_000 }, async (name) => {
    const { call } = await signedIn();
    const source = (await builtin(name)).body;
    const campaign = (await call('POST', '/api/v1/campaigns', { name: `Round trip ${name}`, format: 'mjml', html: source })) as { id: number };
    const before = (await call('POST', `/api/v1/campaigns/${campaign.id}/preview`, {})) as { html: string };

    const { page } = d.browser;
    await page.goto(`${d.server.url}/campaigns/${campaign.id}`);
    await moveABlockAndBack(page, `Design: Round trip ${name}`);

    const stored = (await call('GET', `/api/v1/campaigns/${campaign.id}`)) as { html: string; format: string };
    expect(stored.format).toBe('mjml');
    // the editor's export was stored, not the original text
    expect(stored.html).not.toBe(source);
    const after = (await call('POST', `/api/v1/campaigns/${campaign.id}/preview`, {})) as { html: string };
    expectSameMessage(before.html, after.html);
    expect(d.browser.problems).toEqual([]);
  });

  it.each(LAYOUTS)('layout %s: an own copy moved and moved back compiles to the same HTML', { timeout: 120_000 }, async (name) => {
    const { call } = await signedIn();
    const source = (await builtin(name)).body;
    const copyName = `Round trip ${name.split(' (')[0]}`;
    const template = (await call('POST', '/api/v1/templates', { name: copyName, kind: 'layout', format: 'mjml', body: source })) as Template;

    const { page } = d.browser;
    await page.goto(`${d.server.url}/templates/${template.id}`);
    await moveABlockAndBack(page, `Design: ${copyName}`);

    const stored = (await call('GET', `/api/v1/templates/${template.id}`)) as Template;
    expect(stored.format).toBe('mjml');
    expect(stored.kind).toBe('layout');
    expect(stored.body).not.toBe(source);
    expectSameMessage(template.html, stored.html);
    expect(d.browser.problems).toEqual([]);
  });
});
