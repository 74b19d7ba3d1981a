/**
 * D23 `/api/v1/domains`: adding a sending domain makes its DKIM key and answers the records to
 * publish; verifying looks them up (in a test DNS server, through DNS_SERVERS) and keeps what it
 * found; the warm-up plan is set on create and PUT. The private key is never answered.
 */
import { createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { tenant, type Tenant } from '../sending/send-helpers.ts';

let dns: TestDnsServer;
let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  dns = await startDnsServer();
  server = await startTestServer({ DNS_SERVERS: dns.address });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

const add = (body: Record<string, unknown>, who: Tenant = t) => who.call('POST', '/api/v1/domains', body);
const publish = (domain: { records: { name: string; value: string }[] }) => {
  for (const r of domain.records) dns.setTxt(r.name, r.value);
};

describe('adding a domain (D23)', () => {
  it('makes a 2048-bit RSA key and answers the DKIM, SPF and DMARC records to publish, never the private key', async () => {
    const res = await add({ domain: '  News.Example.TEST ' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('Sending domain added');
    const d = res.body.data;
    expect(d).toMatchObject({
      domain: 'news.example.test',
      dkim_verified: false,
      spf_ok: false,
      dmarc_ok: false,
      checked_at: null,
      found: { dkim: null, spf: null, dmarc: null },
      warmup: { enabled: false, start: 50, factor: 1.5, started_at: null },
      warmup_cap_today: null,
      sent_today: 0,
    });
    expect(d.selector).toMatch(/^[a-z0-9]+$/);
    expect(d.records.map((r: any) => [r.purpose, r.type, r.name])).toEqual([
      ['DKIM', 'TXT', `${d.selector}._domainkey.news.example.test`],
      ['SPF', 'TXT', 'news.example.test'],
      ['DMARC', 'TXT', '_dmarc.news.example.test'],
    ]);
    const dkim = /^v=DKIM1; k=rsa; p=([A-Za-z0-9+/=]+)$/.exec(d.records[0].value);
    expect(dkim).not.toBeNull();
    const key = createPublicKey({ key: Buffer.from(dkim![1], 'base64'), format: 'der', type: 'spki' });
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(d.records[1].value).toMatch(/^v=spf1 /);
    expect(d.records[2].value).toMatch(/^v=DMARC1; p=none/);
    expect(res.text).not.toMatch(/PRIVATE KEY|private/i);
    // Stored, though: it is what signs.
    const row = await server.db.selectFrom('sending_domains').select('dkim_private_key').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.dkim_private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    for (const path of [`/api/v1/domains/${d.id}`, '/api/v1/domains']) expect((await t.call('GET', path)).text).not.toMatch(/PRIVATE KEY/);
  });

  it('a domain that is not a hostname: 400 naming domain', async () => {
    for (const domain of ['not a domain', 'localhost', '-bad-.test', 'a@b.test', '', 'x'.repeat(64) + '.test']) {
      const res = await add({ domain });
      expect(res.status, domain).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('domain') });
    }
    expect((await add({})).status).toBe(400);
  });

  it('the same domain twice in one account, in any case: 409 DOMAIN_ALREADY_EXISTS; another account may add it', async () => {
    expect((await add({ domain: 'twice.example.test' })).status).toBe(200);
    const again = await add({ domain: 'TWICE.example.test.' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('DOMAIN_ALREADY_EXISTS');
    const other = await tenant(server);
    expect((await add({ domain: 'twice.example.test' }, other)).status).toBe(200);
  });
});

describe('verifying (D23)', () => {
  it('before anything is published: 200 with nothing found and every check false', async () => {
    const d = (await add({ domain: 'unpublished.example.test' })).body.data;
    const res = await t.call('POST', `/api/v1/domains/${d.id}/verify`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ dkim_verified: false, spf_ok: false, dmarc_ok: false, found: { dkim: null, spf: null, dmarc: null } });
    expect(res.body.data.checked_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  });

  it('finds the published records and says which hold; a DKIM record with another key is found but not verified', async () => {
    const d = (await add({ domain: 'partly.example.test' })).body.data;
    dns.setTxt(`${d.selector}._domainkey.partly.example.test`, 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong');
    dns.setTxt('partly.example.test', 'google-site-verification=abc', 'v=spf1 include:_spf.example.net ~all');
    const first = (await t.call('POST', `/api/v1/domains/${d.id}/verify`)).body.data;
    expect(first).toMatchObject({
      dkim_verified: false,
      spf_ok: true,
      dmarc_ok: false,
      found: { dkim: expect.stringContaining('wrong'), spf: 'v=spf1 include:_spf.example.net ~all', dmarc: null },
    });

    publish(d);
    const second = (await t.call('POST', `/api/v1/domains/${d.id}/verify`)).body.data;
    expect(second).toMatchObject({ dkim_verified: true, spf_ok: true, dmarc_ok: true, found: { dkim: d.records[0].value, spf: d.records[1].value, dmarc: d.records[2].value } });
    // What was found is kept: reads show it.
    expect((await t.call('GET', `/api/v1/domains/${d.id}`)).body.data).toMatchObject({ dkim_verified: true, checked_at: second.checked_at });

    // Unpublished again: the next check says so.
    dns.setTxt(d.records[0].name);
    expect((await t.call('POST', `/api/v1/domains/${d.id}/verify`)).body.data).toMatchObject({ dkim_verified: false, found: { dkim: null } });
  });

  it('two SPF records are as good as none (RFC 7208); a DMARC record without a policy is not ok', async () => {
    const d = (await add({ domain: 'broken.example.test' })).body.data;
    dns.setTxt('broken.example.test', 'v=spf1 a ~all', 'v=spf1 mx ~all');
    dns.setTxt('_dmarc.broken.example.test', 'v=DMARC1; rua=mailto:d@broken.example.test');
    expect((await t.call('POST', `/api/v1/domains/${d.id}/verify`)).body.data).toMatchObject({ spf_ok: false, dmarc_ok: false, found: { dmarc: 'v=DMARC1; rua=mailto:d@broken.example.test' } });
  });
});

describe('reading, warm-up settings, deleting (D23)', () => {
  it('pages the account\'s domains under `domains`, by name', async () => {
    const own = await tenant(server);
    for (const domain of ['b.example.test', 'a.example.test', 'c.example.test']) expect((await add({ domain }, own)).status).toBe(200);
    const page = (await own.call('GET', '/api/v1/domains?size=2')).body.data;
    expect(page).toMatchObject({ page: 0, size: 2, totalElements: 3, totalPages: 2 });
    expect(page.domains.map((d: any) => d.domain)).toEqual(['a.example.test', 'b.example.test']);
  });

  it('a warm-up plan set on create and changed by PUT; switched on it starts today; today\'s cap follows the formula', async () => {
    const d = (await add({ domain: 'warm.example.test', warmup: { enabled: true, start: 20 } })).body.data;
    expect(d.warmup).toMatchObject({ enabled: true, start: 20, factor: 1.5 });
    expect(d.warmup.started_at.slice(0, 10)).toBe(new Date().toISOString().slice(0, 10));
    expect(d).toMatchObject({ warmup_cap_today: 20, sent_today: 0 });

    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 19);
    const put = await t.call('PUT', `/api/v1/domains/${d.id}`, { warmup: { factor: 2, started_at: twoDaysAgo } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ message: 'Sending domain updated', data: { warmup: { enabled: true, start: 20, factor: 2, started_at: twoDaysAgo }, warmup_cap_today: 80 } });

    const off = (await t.call('PUT', `/api/v1/domains/${d.id}`, { warmup: { enabled: false } })).body.data;
    expect(off).toMatchObject({ warmup: { enabled: false, started_at: twoDaysAgo }, warmup_cap_today: null });
    const on = (await t.call('PUT', `/api/v1/domains/${d.id}`, { warmup: { enabled: true } })).body.data;
    expect(on.warmup.started_at.slice(0, 10)).toBe(new Date().toISOString().slice(0, 10));
    expect(on.warmup_cap_today).toBe(20);
  });

  it('D26.2: warm-up on a domain whose DKIM is not verified is kept, with a warning naming verify; none once verified or with warm-up off', async () => {
    const created = await add({ domain: 'unsigned-warm.example.test', warmup: { enabled: true } });
    expect(created.status, created.text).toBe(200);
    const d = created.body.data;
    expect(d.warmup.enabled).toBe(true);
    expect(created.body.warnings).toEqual([expect.stringMatching(/DKIM record is not verified.*POST \/api\/v1\/domains\/\d+\/verify/)]);
    expect(created.body.warnings[0]).toContain(`/api/v1/domains/${d.id}/verify`);

    const cold = await add({ domain: 'unsigned-cold.example.test' });
    expect(cold.body.warnings).toBeUndefined();

    publish(d);
    expect((await t.call('POST', `/api/v1/domains/${d.id}/verify`)).body.data.dkim_verified).toBe(true);
    const changed = await t.call('PUT', `/api/v1/domains/${d.id}`, { warmup: { start: 80 } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.warnings).toBeUndefined();

    const unverified = await t.call('PUT', `/api/v1/domains/${cold.body.data.id}`, { warmup: { enabled: true } });
    expect(unverified.body.warnings).toHaveLength(1);
  });

  it('warm-up values out of range: 400 naming the field', async () => {
    const d = (await add({ domain: 'ranges.example.test' })).body.data;
    const cases: [Record<string, unknown>, string][] = [
      [{ start: 0 }, 'warmup.start'],
      [{ start: 1.5 }, 'warmup.start'],
      [{ start: 2_000_000 }, 'warmup.start'],
      [{ factor: 0.5 }, 'warmup.factor'],
      [{ factor: 11 }, 'warmup.factor'],
      [{ enabled: 'yes' }, 'warmup.enabled'],
      [{ started_at: 'yesterday' }, 'warmup.started_at'],
    ];
    for (const [warmup, field] of cases) {
      for (const res of [await t.call('PUT', `/api/v1/domains/${d.id}`, { warmup }), await add({ domain: 'other-ranges.example.test', warmup })]) {
        expect(res.status, JSON.stringify(warmup)).toBe(400);
        expect(res.body.error.message, JSON.stringify(warmup)).toContain(field);
      }
    }
  });

  it('deletes; then every route of it answers 404 DOMAIN_NOT_FOUND, as a missing id does', async () => {
    const d = (await add({ domain: 'gone.example.test' })).body.data;
    expect((await t.call('DELETE', `/api/v1/domains/${d.id}`)).body).toEqual({ success: true, data: { id: d.id }, message: 'Sending domain deleted' });
    for (const id of [d.id, 999_999]) {
      for (const [method, path, body] of [
        ['GET', `/api/v1/domains/${id}`],
        ['PUT', `/api/v1/domains/${id}`, { warmup: { enabled: true } }],
        ['POST', `/api/v1/domains/${id}/verify`],
        ['DELETE', `/api/v1/domains/${id}`],
      ] as const) {
        const res = await t.call(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error.code).toBe('DOMAIN_NOT_FOUND');
      }
    }
  });

  it("another account's domain is a missing one: 404, unchanged, never in its page", async () => {
    const d = (await add({ domain: 'mine.example.test' })).body.data;
    const other = await tenant(server);
    for (const [method, path, body] of [
      ['GET', `/api/v1/domains/${d.id}`],
      ['PUT', `/api/v1/domains/${d.id}`, { warmup: { enabled: true } }],
      ['POST', `/api/v1/domains/${d.id}/verify`],
      ['DELETE', `/api/v1/domains/${d.id}`],
    ] as const) {
      const res = await other.call(method, path, body);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('DOMAIN_NOT_FOUND');
    }
    expect((await other.call('GET', '/api/v1/domains')).body.data.domains).toEqual([]);
    expect((await t.call('GET', `/api/v1/domains/${d.id}`)).body.data).toMatchObject({ domain: 'mine.example.test', warmup: { enabled: false }, checked_at: null });
  });

  it('campaigns.read reads; changing needs campaigns.write (403 PERMISSION_DENIED)', async () => {
    const d = (await add({ domain: 'perm.example.test' })).body.data;
    const { key } = await server.createKey(t.accountId, ['campaigns.read']);
    const as = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
    expect((await as('GET', '/api/v1/domains')).status).toBe(200);
    expect((await as('GET', `/api/v1/domains/${d.id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/v1/domains', { domain: 'x.example.test' }],
      ['PUT', `/api/v1/domains/${d.id}`, { warmup: { enabled: true } }],
      ['POST', `/api/v1/domains/${d.id}/verify`],
      ['DELETE', `/api/v1/domains/${d.id}`],
    ] as const) {
      const res = await as(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('PERMISSION_DENIED');
    }
  });
});
