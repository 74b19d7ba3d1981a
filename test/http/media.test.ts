/**
 * D22 media library: `/api/v1/media` (campaigns.write to upload and delete, campaigns.read to
 * read), each image public at PUBLIC_URL/media/{file_name}. What a file is comes from its bytes
 * alone; limits are small here (MEDIA_MAX_BYTES 4096, MEDIA_ACCOUNT_MAX_BYTES 10000) so they are
 * reached with small files.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectRead, expectWritten } from '../helpers/responses.ts';
import { gif, imageForm, jpeg, png, webp } from '../helpers/images.ts';
import { startTestServer, type ApiResponse } from '../helpers/server.ts';

const server = await startTestServer({ PUBLIC_URL: 'https://mail.example.com', MEDIA_MAX_BYTES: '4096', MEDIA_ACCOUNT_MAX_BYTES: '10000' });
afterAll(() => server.close());
const mediaDir = join(server.core.config.dataDir, 'media');

let key: string;
let otherKey: string;
beforeAll(async () => {
  key = (await server.createAccountWithKey()).key;
  otherKey = (await server.createAccountWithKey()).key;
});

/** A multipart/form-data POST made by fetch's own FormData, as a browser would send it. */
async function upload(bytes: Buffer, opts: { name?: string; type?: string; field?: string; apiKey?: string; extra?: (form: FormData) => void } = {}): Promise<ApiResponse> {
  const form = imageForm(bytes, opts.name, opts);
  opts.extra?.(form);
  return raw(form, {}, opts.apiKey);
}

async function raw(body: BodyInit, headers: Record<string, string> = {}, apiKey = key): Promise<ApiResponse> {
  const res = await fetch(`${server.url}/api/v1/media`, { method: 'POST', headers: { 'x-api-key': apiKey, ...headers }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** The image's public address on the test server (PUBLIC_URL names a host that does not exist here). */
const served = (url: string) => fetch(`${server.url}${new URL(url).pathname}`);
const fileOf = (url: string) => join(mediaDir, new URL(url).pathname.split('/').pop()!);

describe('uploading (D22)', () => {
  it('takes PNG, JPEG, GIF and WebP, judged and measured by their bytes, and serves each at its url', async () => {
    const cases = [
      { bytes: png(64, 32), type: 'image/png', ext: 'png', width: 64, height: 32 },
      { bytes: jpeg(800, 600), type: 'image/jpeg', ext: 'jpg', width: 800, height: 600 },
      { bytes: gif(10, 20), type: 'image/gif', ext: 'gif', width: 10, height: 20 },
      { bytes: webp(300, 200), type: 'image/webp', ext: 'webp', width: 300, height: 200 },
    ];
    for (const c of cases) {
      // The declared type and name are wrong on purpose: only the bytes count.
      const res = await upload(c.bytes, { name: 'photo.txt', type: 'application/octet-stream' });
      expectWritten(res, {
        id: expect.any(Number),
        name: 'photo.txt',
        url: expect.stringMatching(new RegExp(`^https://mail\\.example\\.com/media/[A-Za-z0-9_-]{22}\\.${c.ext}$`)),
        content_type: c.type,
        size: c.bytes.length,
        width: c.width,
        height: c.height,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      });
      const file = await served(res.body.data.url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe(c.type);
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
      expect(file.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(file.headers.get('cache-control')).toMatch(/max-age=31536000/);
      expect(Buffer.from(await file.arrayBuffer()).equals(c.bytes)).toBe(true);
      // Public: no key is needed to load it (a mail client has none).
      expectRead(await server.request('GET', `/api/v1/media/${res.body.data.id}`, { key }), res.body.data);
    }
  });

  it('keeps the client\'s file name only as a label: never as the stored name, and capped', async () => {
    const res = await upload(png(1, 1), { name: '../../etc/passwd\u0001' + 'x'.repeat(400) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.name).toBe('passwd' + 'x'.repeat(249));
    expect(res.body.data.url).not.toMatch(/passwd/);
    expect(existsSync(fileOf(res.body.data.url))).toBe(true);
    expect(readdirSync(join(server.core.config.dataDir))).not.toContain('passwd');
  });

  it('refuses what is not a PNG, JPEG, GIF or WebP with 415, whatever it is called (SVG, HTML, text)', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>';
    for (const [body, name, type] of [
      ['just text', 'notes.png', 'image/png'],
      [svg, 'logo.svg', 'image/svg+xml'],
      [svg, 'logo.png', 'image/png'],
      ['<!doctype html><img src=x onerror=alert(1)>', 'page.png', 'image/png'],
      ['', 'empty.png', 'image/png'],
    ]) {
      expectError(await upload(Buffer.from(body), { name, type }), 415, 'UNSUPPORTED_MEDIA_TYPE', /PNG, JPEG, GIF or WebP/);
    }
  });

  it('refuses a file over MEDIA_MAX_BYTES with 413, however large it is', async () => {
    expectError(await upload(Buffer.concat([png(1, 1), Buffer.alloc(4096)])), 413, 'PAYLOAD_TOO_LARGE', /4096 bytes/);
    expectError(await upload(Buffer.concat([png(1, 1), Buffer.alloc(8 * 1024 * 1024)])), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers 400 for malformed multipart, no file part, a part of another name, or several files', async () => {
    expectError(await raw('--xyz\r\nnot a header at all', { 'content-type': 'multipart/form-data; boundary=xyz' }), 400, 'INVALID_REQUEST', /multipart/);
    expectError(await raw('garbage', { 'content-type': 'multipart/form-data' }), 400, 'INVALID_REQUEST');
    const onlyField = new FormData();
    onlyField.append('name', 'no file here');
    expectError(await raw(onlyField), 400, 'INVALID_REQUEST', /file/);
    expectError(await upload(png(1, 1), { field: 'image' }), 400, 'INVALID_REQUEST', /"file"/);
    expectError(await upload(png(1, 1), { extra: (f) => f.append('file', imageForm(png(2, 2)).get('file')!) }), 400, 'INVALID_REQUEST', /one file/);
    const many = await upload(png(1, 1), { extra: (f) => Array.from({ length: 50 }, (_, i) => f.append(`f${i}`, 'v')) });
    expectError(many, 400, 'INVALID_REQUEST');
  });

  it('answers 415 for a body that is not multipart, and other routes keep taking JSON only', async () => {
    expectError(await raw(JSON.stringify({ file: 'x' }), { 'content-type': 'application/json' }), 415, 'UNSUPPORTED_MEDIA_TYPE', /multipart/);
    const form = new FormData();
    form.append('name', 'A list');
    const res = await fetch(`${server.url}/api/v1/lists`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(res.status).toBe(415);
  });

  it("caps an account's library at MEDIA_ACCOUNT_MAX_BYTES (413 saying so); deleting makes room", async () => {
    const { key: own } = await server.createAccountWithKey();
    const big = Buffer.concat([png(1, 1), Buffer.alloc(4000)]);
    const first = await upload(big, { apiKey: own });
    const second = await upload(big, { apiKey: own });
    expect([first.status, second.status]).toEqual([200, 200]);
    expectError(await upload(big, { apiKey: own }), 413, 'PAYLOAD_TOO_LARGE', /library is full/);
    // Another account is not affected.
    expect((await upload(big, { apiKey: otherKey })).status).toBe(200);
    expect((await server.request('DELETE', `/api/v1/media/${first.body.data.id}`, { key: own })).status).toBe(200);
    expect((await upload(big, { apiKey: own })).status).toBe(200);
  });
});

describe('reading and deleting (D22)', () => {
  it('pages newest first under `media` (D6)', async () => {
    const { key: own } = await server.createAccountWithKey();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await upload(png(1, 1), { apiKey: own, name: `p${i}.png` })).body.data.id);
    const first = await server.request('GET', '/api/v1/media?page=0&size=2', { key: own });
    expectRead(first, { media: expect.any(Array), page: 0, size: 2, totalElements: 3, totalPages: 2 });
    expect(first.body.data.media.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[1]]);
    const past = await server.request('GET', '/api/v1/media?page=5&size=2', { key: own });
    expect(past.body.data).toMatchObject({ media: [], totalElements: 3 });
    expectError(await server.request('GET', '/api/v1/media?size=101', { key: own }), 400, 'INVALID_REQUEST');
  });

  it('deletes the row and the file: the url answers 404 from then on', async () => {
    const created = (await upload(png(2, 2))).body.data;
    expect(existsSync(fileOf(created.url))).toBe(true);
    expectWritten(await server.request('DELETE', `/api/v1/media/${created.id}`, { key }), { id: created.id });
    expect(existsSync(fileOf(created.url))).toBe(false);
    expect((await served(created.url)).status).toBe(404);
    expectError(await server.request('GET', `/api/v1/media/${created.id}`, { key }), 404, 'MEDIA_NOT_FOUND');
    expectError(await server.request('DELETE', `/api/v1/media/${created.id}`, { key }), 404, 'MEDIA_NOT_FOUND');
  });

  it('answers 404 MEDIA_NOT_FOUND for a missing id and a public name that was never given out', async () => {
    expectError(await server.request('GET', '/api/v1/media/999999', { key }), 404, 'MEDIA_NOT_FOUND');
    for (const name of ['AAAAAAAAAAAAAAAAAAAAAA.png', '..%2Fsecret', 'x.svg', '%2E%2E%2F%2E%2E%2Fsecret']) {
      const res = await fetch(`${server.url}/media/${name}`);
      expect(res.status, name).toBe(404);
      expect((await res.json()).error.code).toBe('MEDIA_NOT_FOUND');
    }
  });

  it("D3: another account's image answers as a missing one, and it cannot delete it", async () => {
    const mine = (await upload(png(3, 3))).body.data;
    expectError(await server.request('GET', `/api/v1/media/${mine.id}`, { key: otherKey }), 404, 'MEDIA_NOT_FOUND');
    expectError(await server.request('DELETE', `/api/v1/media/${mine.id}`, { key: otherKey }), 404, 'MEDIA_NOT_FOUND');
    const theirs = await server.request('GET', '/api/v1/media?size=100', { key: otherKey });
    expect(theirs.body.data.media.map((m: { id: number }) => m.id)).not.toContain(mine.id);
    expect((await served(mine.url)).status).toBe(200);
  });

  it('needs campaigns.write to upload and delete, campaigns.read to read; no key is 401', async () => {
    const account = await server.createAccount();
    const reader = (await server.createKey(account.id, ['campaigns.read'])).key;
    const writer = (await server.createKey(account.id, ['campaigns.write'])).key;
    expectError(await upload(png(1, 1), { apiKey: reader }), 403, 'PERMISSION_DENIED');
    const created = await upload(png(1, 1), { apiKey: writer });
    expect(created.status, created.text).toBe(200);
    expectError(await server.request('GET', '/api/v1/media', { key: writer }), 403, 'PERMISSION_DENIED');
    expect((await server.request('GET', `/api/v1/media/${created.body.data.id}`, { key: reader })).status).toBe(200);
    expectError(await server.request('DELETE', `/api/v1/media/${created.body.data.id}`, { key: reader }), 403, 'PERMISSION_DENIED');
    expectError(await server.request('GET', '/api/v1/media'), 401, 'UNAUTHORIZED');
    expect((await fetch(`${server.url}/api/v1/media`, { method: 'POST', body: new FormData() })).status).toBe(401);
  });
});
