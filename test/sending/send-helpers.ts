import { expect } from 'vitest';
import type { ApiResponse, TestServer } from '../helpers/server.ts';
import type { ReceivedMessage } from './smtp-sink.ts';

/** Links in mails are built from PUBLIC_URL (D16); tests map them back onto the test server. */
export const PUBLIC_URL = 'https://mail.example.test';

/** Fast sending for tests: short polls and retries (the dispatcher itself is started by each test file). */
export const FAST_SENDING = { PUBLIC_URL, SEND_POLL_MS: '20', SEND_RETRY_BASE_MS: '20' } as const;

export type Campaign = Record<string, any>;

/** An account of its own with a key, and request helpers bound to it. */
export async function tenant(server: TestServer, permissions: string[] = ['*']) {
  const { accountId, key } = await server.createAccountWithKey(permissions);
  const call = (method: string, path: string, body?: unknown) => server.request(method, path, { key, body });
  const ok = async (res: Promise<ApiResponse>) => {
    const r = await res;
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data;
  };
  return {
    accountId,
    key,
    call,
    list: async (name: string): Promise<number> => (await ok(call('POST', '/api/v1/lists', { name }))).id,
    contact: (body: Record<string, unknown>): Promise<Record<string, any>> => ok(call('POST', '/api/v1/contacts', body)),
    addToList: (listId: number, emails: string[]) => ok(call('POST', `/api/v1/lists/${listId}/contacts`, { emails })),
    getContact: (email: string): Promise<Record<string, any>> => ok(call('GET', `/api/v1/contacts/${encodeURIComponent(email)}`)),
    campaign: (body: Record<string, unknown>): Promise<Campaign> => ok(call('POST', '/api/v1/campaigns', { name: 'Campaign', ...body })),
    getCampaign: (id: number): Promise<Campaign> => ok(call('GET', `/api/v1/campaigns/${id}`)),
    send: (id: number): Promise<Campaign> => ok(call('POST', `/api/v1/campaigns/${id}/send`)),
    stats: (id: number): Promise<Record<string, number>> => ok(call('GET', `/api/v1/campaigns/${id}/statistics`)),
    /** polls the campaign until its status is one of `statuses` (fails after `timeoutMs`) */
    async waitForStatus(id: number, statuses: string | string[], timeoutMs = 15_000): Promise<Campaign> {
      const wanted = Array.isArray(statuses) ? statuses : [statuses];
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const c = await ok(call('GET', `/api/v1/campaigns/${id}`));
        if (wanted.includes(c.status)) return c;
        if (Date.now() > deadline) throw new Error(`campaign ${id} stayed ${c.status}; expected ${wanted.join(' or ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
export type Tenant = Awaited<ReturnType<typeof tenant>>;

/** A complete, sendable campaign body for the given lists. */
export function sendable(listIds: number[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    subject: 'Hello {{ first_name }}',
    from_name: 'Acme News',
    from_email: 'news@acme.test',
    html: '<p>Hi {{ first_name }}</p><a href="https://example.com/a">A</a>',
    text: 'Hi {{ first_name }}',
    list_ids: listIds,
    ...extra,
  };
}

/** A unique address prefix per test, so tests sharing a sink never see each other's mail. */
let seq = 0;
export function addressMaker(label: string) {
  const run = `${label}${Date.now().toString(36)}${(seq++).toString(36)}`;
  return (name: string) => `${name}.${run}@example.org`;
}

/** Messages of one campaign, by the campaign id in their Message-ID (`<c{campaign}.r{recipient}.{sig}@domain>`). */
export function messagesOfCampaign(messages: ReceivedMessage[], campaignId: number): ReceivedMessage[] {
  return messages.filter((m) => (m.messageId ?? '').startsWith(`<c${campaignId}.r`));
}

export function recipientOf(m: ReceivedMessage): string {
  expect(m.envelope.to).toHaveLength(1);
  return m.envelope.to[0];
}

/** The raw header lines of `name`, each with its continuation lines (folding) kept as they are. */
export function rawHeader(raw: string, name: string): string[] {
  const block = raw.slice(0, raw.search(/\r?\n\r?\n/));
  const lines = block.split(/\r?\n/);
  const found: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].toLowerCase().startsWith(name.toLowerCase() + ':')) continue;
    let line = lines[i];
    while (i + 1 < lines.length && /^[ \t]/.test(lines[i + 1])) line += '\n' + lines[++i];
    found.push(line);
  }
  return found;
}

/** hrefs of <a> and srcs of <img> in an HTML body. */
export function linksIn(html: string): { hrefs: string[]; imgs: string[]; traps: string[] } {
  const all = [...html.matchAll(/<a\b[^>]*\bhref=(["'])(.+?)\1/gi)].map((m) => m[2].replace(/&amp;/g, '&'));
  const imgs = [...html.matchAll(/<img\b[^>]*\bsrc=(["'])(.+?)\1/gi)].map((m) => m[2].replace(/&amp;/g, '&'));
  // D23's hidden trap link is in every HTML message, for scanners; the links a reader sees are the rest.
  const isTrap = (url: string) => url.includes('/t/t/');
  return { hrefs: all.filter((u) => !isTrap(u)), imgs, traps: all.filter(isTrap) };
}

/** A URL from a mail (under PUBLIC_URL) as the same path on the test server. */
export function onServer(server: TestServer, url: string): string {
  expect(url.startsWith(PUBLIC_URL + '/'), url).toBe(true);
  return server.url + url.slice(PUBLIC_URL.length);
}

/** A plain fetch that does not follow redirects (a click must answer 302 itself). */
export async function hit(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, text: body.toString('utf8') };
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Tampered forms of a tracking URL: a payload character changed, a signature character changed,
 * and the signature's last character changed only in the bits base64url decoding ignores.
 */
export function tamperings(url: string): string[] {
  const dot = url.lastIndexOf('.');
  const swap = (s: string, i: number, c: string) => s.slice(0, i) + c + s.slice(i + 1);
  const other = (c: string) => (c === 'A' ? 'B' : 'A');
  const last = url.length - 1;
  return [
    swap(url, dot - 1, other(url[dot - 1])),
    swap(url, dot + 3, other(url[dot + 3])),
    swap(url, last, B64URL[B64URL.indexOf(url[last]) ^ 1]),
  ];
}

/** Recipient rows of a campaign, by e-mail. */
export async function recipientRows(server: TestServer, campaignId: number) {
  const rows = await server.db.selectFrom('campaign_recipients').selectAll().where('campaign_id', '=', campaignId).orderBy('id').execute();
  return new Map(rows.map((r) => [r.email, r]));
}

/** What a page behind a mail's link must be (D17.1, D20): for a phone, styled inline, no script, nothing fetched from elsewhere. */
export function expectStandAlonePage(res: { status: number; headers: Headers; text: string }) {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toMatch(/^<!doctype html>/i);
  expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  expect(res.text).toContain('style="');
  expect(res.text).not.toMatch(/<(script|link|img|iframe|object|embed)\b|<[^>]+\s(src|href)=|url\(|@import/i);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(res.headers.get('cache-control')).toBe('no-store');
}
