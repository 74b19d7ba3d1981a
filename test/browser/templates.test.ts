/**
 * D22's template gallery in a real browser: starters and layouts as cards with sandboxed
 * thumbnails of their compiled HTML; "Use this starter" makes a campaign and opens it; an own
 * layout is created, refused with the server's words shown beside the body, fixed and saved; a
 * built-in is duplicated into an own copy.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILTIN_IMAGES_DIR } from '../../src/domain/templates/builtin-images.ts';
import { ownPublicUrl } from '../helpers/server.ts';
import { choose, haveChromium, screenshot, signUpWithApi, withDashboard } from './browser.ts';

// D26.4: the thumbnails load their pictures from PUBLIC_URL, which is this server
const publicUrl = await ownPublicUrl();

describe.skipIf(!haveChromium)('D22: the template gallery in the browser', () => {
  const d = withDashboard({ env: publicUrl });
  /** One account for the file, signed up by the first test that needs it (the session stays). */
  let account: ReturnType<typeof signUpWithApi> | undefined;
  const signedIn = () => (account ??= signUpWithApi(d));

  it('shows the built-in starters and layouts with thumbnails; "Use this starter" creates a campaign and opens it', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await signedIn();
    await page.goto(d.server.url + '/overview');
    await page.getByRole('link', { name: 'Templates', exact: true }).click();

    const starters = page.getByRole('region', { name: 'Starters' });
    for (const name of ['Newsletter', 'Announcement', 'Product showcase', 'Welcome', 'Event invitation', 'Plain letter']) {
      await expect.poll(() => starters.getByRole('article', { name }).isVisible()).toBe(true);
    }
    const layouts = page.getByRole('region', { name: 'Layouts' });
    expect(await layouts.getByRole('article').count()).toBeGreaterThanOrEqual(2);

    // each thumbnail is the compiled email in a sandbox that runs no script
    const frames = page.locator('iframe.template-thumb-frame');
    expect(await frames.count()).toBeGreaterThanOrEqual(8);
    for (const frame of await frames.all()) expect(await frame.getAttribute('sandbox')).toBe('');
    const newsletter = page.frameLocator('iframe[title="Preview of Newsletter"]');
    await expect.poll(() => newsletter.getByText('The Monthly Letter').isVisible()).toBe(true);
    const branded = page.frameLocator('iframe[title^="Preview of Branded layout"]');
    await expect.poll(() => branded.getByText('Your brand').isVisible()).toBe(true);
    // D26.4: the gallery loads nothing from another host: the thumbnails show the service's own pictures
    const thumbnailImages = async () =>
      (await Promise.all(page.frames().map((frame) => frame.locator('img').evaluateAll((all) => all.map((img) => ({ src: (img as HTMLImageElement).src, shown: (img as HTMLImageElement).naturalWidth > 0 })))))).flat();
    await expect.poll(async () => (await thumbnailImages()).every((img) => img.shown)).toBe(true);
    const images = await thumbnailImages();
    expect(images.filter((img) => !img.src.startsWith(`${d.server.url}/media/builtin/`))).toEqual([]);
    // every picture but the product showcase's hero, which is a CSS background
    expect(new Set(images.map((img) => img.src)).size).toBe(readdirSync(BUILTIN_IMAGES_DIR).length - 1);
    expect(d.browser.requested.filter((url) => !url.startsWith(`${d.server.url}/`) && !/^(data|about|blob):/.test(url))).toEqual([]);
    // a viewport tall enough for the whole gallery: a full-page capture leaves frames below the fold unpainted
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 1280, height: 1700 });
    await screenshot(page, 'templates-gallery');
    if (viewport) await page.setViewportSize(viewport);

    await starters.getByRole('article', { name: 'Newsletter' }).getByRole('button', { name: 'Use this starter' }).click();
    // the campaign's MJML is compiled on save, on a thread that may still be loading mjml
    await expect.poll(() => page.url(), { timeout: 20_000 }).toMatch(/\/campaigns\/\d+$/);
    const id = Number(page.url().split('/').at(-1));
    const campaign = await d.server.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(campaign.name).toBe('Newsletter');
    expect(campaign.html).toContain('<mjml>');
    expect(campaign.format).toBe('mjml');
  });

  it('creates a layout: a body without {{ content }} is refused with the reason shown, then fixed and saved', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await signedIn();
    await page.goto(d.server.url + '/templates');
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('textbox', { name: /^Name/ }).fill('House layout');
    await choose(page, 'Kind', 'Layout');
    const body = page.getByRole('textbox', { name: /^Body/ });
    await body.fill('<div>no slot here</div>');
    await page.getByRole('button', { name: 'Create template' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toMatch(/must hold \{\{ content \}\}/);
    await screenshot(page, 'template-editor-error', { fullPage: true });

    await body.fill('<div style="padding:16px">{{ content }}</div><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>');
    await page.getByRole('button', { name: 'Create template' }).click();
    await expect.poll(() => page.url()).toMatch(/\/templates\/\d+$/);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Template created.');

    // editing it: MJML that does not compile names its line, inline
    await choose(page, 'Format', 'MJML');
    await body.fill('<mjml>\n<mj-body>\n<mj-section><mj-column><mj-text colour="red">{{ content }}</mj-text></mj-column></mj-section>\n</mj-body>\n</mjml>');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/body line 3 has an MJML error/);
    const id = Number(page.url().split('/').at(-1));
    expect((await d.server.db.selectFrom('templates').select('format').where('id', '=', id).executeTakeFirstOrThrow()).format).toBe('html');

    await page.getByRole('link', { name: '← Templates' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Layouts' }).getByRole('article', { name: 'House layout' }).isVisible()).toBe(true);
  });

  it('duplicates a built-in into an own copy that can be edited and deleted', { timeout: 120_000 }, async () => {
    const { page } = d.browser;
    await signedIn();
    await page.goto(d.server.url + '/templates');
    const welcome = page.getByRole('region', { name: 'Starters' }).getByRole('article', { name: 'Welcome' });
    await expect.poll(() => welcome.isVisible()).toBe(true);
    expect(await welcome.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await welcome.getByRole('button', { name: 'Duplicate' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Welcome (copy)' }).isVisible()).toBe(true);
    await page.getByRole('textbox', { name: /^Name/ }).fill('Our welcome');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Template saved.');

    await page.getByRole('link', { name: '← Templates' }).click();
    const copy = page.getByRole('article', { name: 'Our welcome' });
    await copy.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete template' }).click();
    await expect.poll(() => copy.count()).toBe(0);
  });
});
