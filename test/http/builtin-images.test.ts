/**
 * D26.4: the built-in templates load nothing from another host. Every image reference in what a
 * recipient gets from each built-in (a starter as a campaign's content, a layout around content,
 * rendered by the preview endpoint as it is rendered for sending) and in the gallery's thumbnails
 * (the template's `html`) is on PUBLIC_URL, and answers 200 with an image.
 */
import { Parser } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffImage } from '../../src/domain/media/image-sniff.ts';
import { BUILTIN_SOURCES } from '../../src/domain/templates/builtin-templates.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PUBLIC_URL, sendable, tenant, type Tenant } from '../sending/send-helpers.ts';

let server: TestServer;
let t: Tenant;
let campaignId: number;

/** What each built-in layout is shown around: content of the kind its slot takes (see builtin-templates.ts). */
const CONTENT_FOR_LAYOUT: Record<string, { format: string; html: string }> = {
  'layout-text-slot': { format: 'markdown', html: '# Hello {{ first_name }}\n\nSome *news*.' },
  'layout-section-slot': { format: 'mjml', html: '<mj-section><mj-column><mj-text>Hello {{ first_name }}</mj-text></mj-column></mj-section>' },
};

const CSS_URL = /url\(\s*(['"]?)([^'")]*)\1\s*\)/gi;

/**
 * Every address the HTML makes a mail client load: `src` and `background` attributes (VML's
 * `v:image` and `v:fill` too), stylesheet links, and CSS `url()` in style attributes and <style>
 * blocks. Outlook's conditional comments (`<!--[if mso]>`) are read as HTML, since Outlook does.
 */
function loadedAddresses(html: string): string[] {
  const found: string[] = [];
  const cssUrls = (css: string) => {
    for (const m of css.matchAll(CSS_URL)) found.push(m[2].replace(/&amp;/g, '&'));
  };
  let inStyle = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        for (const attribute of ['src', 'background']) if (attributes[attribute] !== undefined) found.push(attributes[attribute]);
        if (name === 'link' && attributes.href !== undefined) found.push(attributes.href);
        if (attributes.style !== undefined) cssUrls(attributes.style);
        inStyle = name === 'style';
      },
      ontext(text) {
        if (inStyle) cssUrls(text);
      },
      onclosetag() {
        inStyle = false;
      },
      oncomment(comment) {
        found.push(...loadedAddresses(comment));
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return found;
}

/** Each address is under PUBLIC_URL and answers 200 with the image its Content-Type names. */
async function expectServedImages(what: string, html: string) {
  const addresses = [...new Set(loadedAddresses(html))];
  for (const address of addresses) {
    expect(address.startsWith(`${PUBLIC_URL}/`), `${what} loads ${address}`).toBe(true);
    // PUBLIC_URL names a host that does not exist here: the same path on the test server.
    const res = await fetch(server.url + address.slice(PUBLIC_URL.length));
    expect(res.status, `${what}: ${address}`).toBe(200);
    expect(res.headers.get('content-type'), `${what}: ${address}`).toMatch(/^image\//);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const image = sniffImage(new Uint8Array(await res.arrayBuffer()));
    expect(image?.contentType, `${what}: ${address} is the image its Content-Type says`).toBe(res.headers.get('content-type'));
    expect(image!.width).toBeGreaterThan(0);
  }
  return addresses;
}

async function builtins(): Promise<any[]> {
  const res = await t.call('GET', '/api/v1/templates?size=100');
  expect(res.status, res.text).toBe(200);
  const all = res.body.data.templates.filter((x: any) => x.builtin);
  expect(all).toHaveLength(BUILTIN_SOURCES.length);
  return all;
}

const builtinNamed = (name: string) => BUILTIN_SOURCES.find((s) => s.name === name)!;

beforeAll(async () => {
  server = await startTestServer({ PUBLIC_URL });
  t = await tenant(server);
  const list = await t.list('Readers');
  campaignId = (await t.campaign(sendable([list]))).id;
});
afterAll(() => server?.close());

describe('D26.4: the built-in templates load nothing from another host', () => {
  it('each starter, previewed as a campaign made from it, loads its images from PUBLIC_URL only, each answering 200 with an image', { timeout: 60_000 }, async () => {
    let images = 0;
    for (const starter of (await builtins()).filter((x) => x.kind === 'starter')) {
      const res = await t.call('POST', `/api/v1/campaigns/${campaignId}/preview`, { format: starter.format, html: starter.body });
      expect(res.status, res.text).toBe(200);
      images += (await expectServedImages(starter.name, res.body.data.html)).length;
    }
    // the starters show pictures, logos and social icons: the check above had something to check
    expect(images).toBeGreaterThanOrEqual(10);
  });

  it('each layout, previewed around content of its kind, loads its images from PUBLIC_URL only', { timeout: 60_000 }, async () => {
    for (const layout of (await builtins()).filter((x) => x.kind === 'layout')) {
      const content = CONTENT_FOR_LAYOUT[builtinNamed(layout.name).builtin_key];
      expect(content, `content to show in the layout ${layout.name}`).toBeDefined();
      const res = await t.call('POST', `/api/v1/campaigns/${campaignId}/preview`, { ...content, template_id: layout.id });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.html).toContain('Hello');
      await expectServedImages(layout.name, res.body.data.html);
    }
  });

  it("the gallery's thumbnails (each built-in's compiled html) load from PUBLIC_URL only", { timeout: 60_000 }, async () => {
    for (const template of await builtins()) await expectServedImages(`${template.name}'s thumbnail`, template.html);
  });

  it('serves each picture as the media library serves its images: its type, nosniff, nothing run, a year in caches; another name is 404', async () => {
    const res = await fetch(`${server.url}/media/builtin/newsletter-feature.png`);
    expect(res.status).toBe(200);
    expect(Object.fromEntries(['content-type', 'x-content-type-options', 'content-security-policy', 'cache-control'].map((h) => [h, res.headers.get(h)]))).toEqual({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'public, max-age=31536000, immutable',
    });
    expect(Number(res.headers.get('content-length'))).toBe((await res.arrayBuffer()).byteLength);
    for (const name of ['no-such-picture.png', 'newsletter-feature.jpg', '..%2Fcompiled.json', '..%2F..%2F..%2Fpackage.json']) {
      const missing = await fetch(`${server.url}/media/builtin/${name}`);
      expect(missing.status, name).toBe(name.endsWith('.png') ? 404 : 400);
      expect(missing.headers.get('content-type'), name).toMatch(/^application\/json/);
    }
  });
});
