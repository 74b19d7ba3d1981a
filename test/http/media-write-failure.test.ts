/**
 * D22 with D24.8: an upload whose file cannot be written is refused, holds no room in the media
 * library, and the audit log says the upload was undone (its `media.uploaded` entry was written
 * with the row that reserved the room).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { imageForm, png } from '../helpers/images.ts';
import { startTestServer } from '../helpers/server.ts';

const server = await startTestServer();
afterAll(() => server.close());

it('a file that cannot be written: 500, no media row, and media.uploaded followed by media.upload_failed for the same id', async () => {
  const { accountId, key } = await server.createAccountWithKey();
  // The media folder's place is taken by a plain file: the upload's mkdir and write fail.
  const mediaDir = join(server.core.config.dataDir, 'media');
  rmSync(mediaDir, { recursive: true, force: true });
  writeFileSync(mediaDir, 'not a folder');
  const res = await fetch(`${server.url}/api/v1/media`, { method: 'POST', headers: { 'x-api-key': key }, body: imageForm(png(4, 4)) });
  expect(res.status).toBe(500);
  expect(await server.db.selectFrom('media').select('id').where('account_id', '=', accountId).execute()).toEqual([]);
  const entries = await server.db.selectFrom('audit_log').select(['action', 'target_type', 'target_id']).where('account_id', '=', accountId).where('target_type', '=', 'media').orderBy('id').execute();
  expect(entries.map((e) => e.action)).toEqual(['media.uploaded', 'media.upload_failed']);
  expect(entries[1]!.target_id).toBe(entries[0]!.target_id);
  expect(entries[1]!.target_type).toBe('media');
});
