/**
 * Issue 28 M4: the media quota was checked, then the file written, then the row inserted, so
 * concurrent uploads all passed the check (525 MB written against a much smaller cap). Now the
 * bytes are reserved (the row inserted under a lock that counts the library) before the file is
 * written, and released if the write fails.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { imageForm, png } from '../helpers/images.ts';
import { expectError } from '../helpers/responses.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';

const CAP = 20_000;
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
async function server(fileMaxBytes = 8192) {
  const s = await startTestServer({ MEDIA_MAX_BYTES: String(fileMaxBytes), MEDIA_ACCOUNT_MAX_BYTES: String(CAP) });
  servers.push(s);
  return s;
}

async function upload(s: TestServer, key: string, bytes: Buffer): Promise<ApiResponse> {
  const res = await fetch(`${s.url}/api/v1/media`, { method: 'POST', headers: { 'x-api-key': key }, body: imageForm(bytes) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** A PNG of exactly `size` bytes: a 1 x 1 picture with zeros after its end, which the sniffer ignores. */
const pngOf = (size: number) => {
  const head = png(1, 1);
  return Buffer.concat([head, Buffer.alloc(size - head.length)]);
};

const mediaFiles = (s: TestServer) => {
  try {
    return readdirSync(join(s.core.config.dataDir, 'media')).sort();
  } catch {
    return [];
  }
};

async function storedRows(s: TestServer, accountId: number) {
  return s.db.selectFrom('media').select(['file_name', 'size']).where('account_id', '=', accountId).execute();
}

describe('issue 28 M4: concurrent uploads never pass the account media cap', () => {
  it('M4: of 20 concurrent 3,000-byte uploads against a 20,000-byte cap, 6 are stored, the rest get 413, no orphan file remains', async () => {
    const s = await server();
    const { accountId, key } = await s.createAccountWithKey();
    const results = await Promise.all(Array.from({ length: 20 }, () => upload(s, key, pngOf(3_000))));

    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok.length).toBe(Math.floor(CAP / 3_000));
    for (const r of refused) expectError(r, 413, 'PAYLOAD_TOO_LARGE', /library is full.*20000 bytes \(MEDIA_ACCOUNT_MAX_BYTES\)/);

    const rows = await storedRows(s, accountId);
    const total = rows.reduce((n, r) => n + Number(r.size), 0);
    expect(total).toBeLessThanOrEqual(CAP);
    expect(rows.length).toBe(ok.length);
    // Every file on disk has its row and every row its file: nothing refused left bytes behind.
    expect(mediaFiles(s)).toEqual(rows.map((r) => r.file_name).sort());
  });

  it('M4: a file that cannot be written releases its reservation: 500, no row, and the room is there for the next upload', async () => {
    const s = await server(CAP); // one file may fill the whole library
    const { accountId, key } = await s.createAccountWithKey();
    const dir = join(s.core.config.dataDir, 'media');
    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, 'not a folder'); // the write of any media file fails now

    const failed = await upload(s, key, pngOf(CAP));
    expectError(failed, 500, 'INTERNAL_ERROR');
    expect(await storedRows(s, accountId)).toEqual([]);

    rmSync(dir);
    mkdirSync(dir);
    const stored = await upload(s, key, pngOf(CAP)); // the whole cap: nothing of the failed upload is still counted
    expect(stored.status, stored.text).toBe(200);
    expect(mediaFiles(s)).toEqual((await storedRows(s, accountId)).map((r) => r.file_name));
  });
});
