/**
 * Issue 28 (seen beside the findings): a PNG header may declare 4294967295 x 4294967295 pixels
 * and the library stored it so, for any mail client or preview that trusts it to allocate. Every
 * kind sniffed is held to 10,000 pixels a side and 50 megapixels, refused with 415 naming the limit.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gif, imageForm, jpeg, png, webp } from '../helpers/images.ts';
import { expectError } from '../helpers/responses.ts';
import { startTestServer, type ApiResponse } from '../helpers/server.ts';

const server = await startTestServer();
afterAll(() => server.close());
let key: string;
beforeAll(async () => {
  key = (await server.createAccountWithKey()).key;
});

async function upload(bytes: Buffer): Promise<ApiResponse> {
  const res = await fetch(`${server.url}/api/v1/media`, { method: 'POST', headers: { 'x-api-key': key }, body: imageForm(bytes) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** A real 1 x 1 PNG whose IHDR then claims another size (the sniffer reads the header, not the pixels). */
function forgedPng(width: number, height: number): Buffer {
  const bytes = Buffer.from(png(1, 1));
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

const LIMIT = /4294967295 x 4294967295 pixels; at most 10000 pixels a side and 50 megapixels/;

describe('issue 28 PNG dimensions: declared sizes are capped', () => {
  it('PNG dimensions: refuses a PNG declaring 4294967295 x 4294967295 with 415 naming the limit, and stores nothing', async () => {
    expectError(await upload(forgedPng(0xffffffff, 0xffffffff)), 415, 'UNSUPPORTED_MEDIA_TYPE', LIMIT);
    const list = await server.request('GET', '/api/v1/media', { key });
    expect(list.body.data.totalElements).toBe(0);
    const dir = join(server.core.config.dataDir, 'media');
    expect(readdirSync(server.core.config.dataDir).includes('media') ? readdirSync(dir) : []).toEqual([]);
  });

  it('PNG dimensions: every kind is held to 10,000 a side and 50 megapixels; at the limits it is taken', async () => {
    expectError(await upload(forgedPng(10_001, 1)), 415, 'UNSUPPORTED_MEDIA_TYPE', /10001 x 1 pixels/);
    expectError(await upload(forgedPng(10_000, 5_001)), 415, 'UNSUPPORTED_MEDIA_TYPE', /10000 x 5001 pixels/);
    expectError(await upload(gif(65_535, 2)), 415, 'UNSUPPORTED_MEDIA_TYPE', /65535 x 2 pixels/);
    expectError(await upload(jpeg(20_000, 20_000)), 415, 'UNSUPPORTED_MEDIA_TYPE', /20000 x 20000 pixels/);
    expectError(await upload(webp(16_384, 16_384)), 415, 'UNSUPPORTED_MEDIA_TYPE', /16384 x 16384 pixels/);
    const atLimit = await upload(forgedPng(10_000, 5_000));
    expect(atLimit.status, atLimit.text).toBe(200);
    expect(atLimit.body.data).toMatchObject({ width: 10_000, height: 5_000 });
  });
});
