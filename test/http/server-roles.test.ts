import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { createAccount } from '../../src/domain/accounts/accounts.service.ts';
import { startServer } from '../../src/server.ts';
import { testDatabase } from '../helpers/database.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

// Issue 29, item 3: one core for every role, and each role builds only its own workers.
describe('serve --role: the core and the workers each role builds', () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let config: Config;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sendwell-roles-'));
    database = await testDatabase();
    config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SECRET: 'roles-test', LOG_LEVEL: 'silent', SEND_POLL_MS: '50', ...(database.url ? { DATABASE_URL: database.url } : {}) });
  });

  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an API-only process serves HTTP and builds no sender; a sender-only process serves nothing and sends what the API queued', async () => {
    const api = await startServer(config, 'api');
    const sender = await startServer(config, 'sender');
    try {
      expect(api.sender).toBeNull();
      expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sender.app).toBeNull();
      expect(sender.url).toBeNull();
      expect(sender.sender).not.toBeNull();

      // Both run on the same core's rules: a key made through the sender's core works on the API's.
      const account = await createAccount(sender.core.handle.db, { name: 'Roles', plan: 'enterprise' });
      const { key } = await sender.core.apiKeys.create(SYSTEM_ACTING, account.id, { name: 'roles', permissions: ['*'], expires_at: null });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(api.url + path, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
        return { status: res.status, body: (await res.json()) as any };
      };
      const list = await call('POST', '/api/v1/lists', { name: 'Readers' });
      expect(list.status).toBe(200);
      expect((await call('POST', '/api/v1/contacts', { email: 'reader@example.com' })).status).toBe(200);
      expect((await call('POST', `/api/v1/lists/${list.body.data.id}/contacts`, { emails: ['reader@example.com'] })).status).toBe(200);
      const campaign = await call('POST', '/api/v1/campaigns', { name: 'Hello', subject: 'Hello', from_email: 'news@example.com', from_name: 'News', html: '<p>Hello</p>', list_ids: [list.body.data.id] });
      expect(campaign.status).toBe(200);
      const send = await call('POST', `/api/v1/campaigns/${campaign.body.data.id}/send`);
      expect(send.status, JSON.stringify(send.body)).toBe(200);

      // Only the sender-only process sends; the API process has no dispatcher to do it.
      let status = '';
      for (let i = 0; i < 200 && status !== 'SENT'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await call('GET', `/api/v1/campaigns/${campaign.body.data.id}`)).body.data.status;
      }
      expect(status).toBe('SENT');
    } finally {
      await api.stop();
      await sender.stop();
    }
  });
});
