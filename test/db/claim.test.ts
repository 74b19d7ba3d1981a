import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimRecipients } from '../../src/domain/campaigns/recipients.repo.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
let server: TestServer;
let campaignId: number;

async function seedRecipients(count: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({ campaign_id: campaignId, email: `r${i}-${Date.now()}@example.com`, status: 'PENDING' }));
  for (let i = 0; i < rows.length; i += 200) await server.db.insertInto('campaign_recipients').values(rows.slice(i, i + 200)).execute();
}

beforeAll(async () => {
  server = await startTestServer();
  const { key } = await server.createAccountWithKey();
  const res = await server.request('POST', '/api/v1/campaigns', { key, body: { name: 'claims' } });
  campaignId = res.body.data.id;
  // Only a SENDING campaign's rows are claimed (issue 34: not a PAUSED or CANCELLED one's).
  await server.db.updateTable('campaigns').set({ status: 'SENDING' }).where('id', '=', campaignId).execute();
});
afterAll(() => server.close());

describe('claiming recipients for sending', () => {
  it('two processes claiming from one table never claim the same row, and together claim every row', async () => {
    await seedRecipients(1500);
    const barrier = mkdtempSync(join(tmpdir(), 'sendwell-claim-'));
    const worker = () => run(process.execPath, ['--import', 'tsx', 'test/db/claim-worker.ts'], { env: { ...process.env, ...server.env, BARRIER_DIR: barrier, WORKERS: '2' } });
    const [a, b] = await Promise.all([worker(), worker()]).finally(() => rmSync(barrier, { recursive: true, force: true }));
    const idsA: number[] = JSON.parse(a.stdout);
    const idsB: number[] = JSON.parse(b.stdout);
    expect(idsA.length).toBeGreaterThan(0);
    expect(idsB.length).toBeGreaterThan(0);
    const overlap = idsA.filter((id) => new Set(idsB).has(id));
    expect(overlap).toEqual([]);
    expect(idsA.length + idsB.length).toBe(1500);
    const stillPending = await server.db.selectFrom('campaign_recipients').select('id').where('status', '!=', 'CLAIMED').execute();
    expect(stillPending).toEqual([]);
  });

  it('takes back rows whose lease has ended, and leaves leased and not-yet-due rows alone', async () => {
    await server.db.deleteFrom('campaign_recipients').execute();
    await seedRecipients(3);
    const ids = (await server.db.selectFrom('campaign_recipients').select('id').orderBy('id').execute()).map((r) => r.id);
    const past = '2000-01-01T00:00:00.000Z';
    const future = '2999-01-01T00:00:00.000Z';
    await server.db.updateTable('campaign_recipients').set({ status: 'CLAIMED', claimed_until: past }).where('id', '=', ids[0]).execute();
    await server.db.updateTable('campaign_recipients').set({ status: 'CLAIMED', claimed_until: future }).where('id', '=', ids[1]).execute();
    await server.db.updateTable('campaign_recipients').set({ next_attempt_at: future }).where('id', '=', ids[2]).execute();
    const now = new Date().toISOString();
    const claimed = await claimRecipients(server.db, server.core.handle.dialect, { limit: 10, now, leaseUntil: future });
    expect(claimed.map((r) => r.id)).toEqual([ids[0]]);
  });
});
