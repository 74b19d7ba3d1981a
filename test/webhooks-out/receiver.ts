/**
 * A real HTTP server standing in for a customer's webhook endpoint. Each path answers as the test
 * says (default: 200), and every request is kept with its headers and exact body bytes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hook {
  path: string;
  headers: IncomingHttpHeaders;
  /** the raw body, as received */
  body: string;
}

/** How a path answers its n-th request (0-based): write to `res`, or leave it hanging. */
export type Answer = (res: ServerResponse, n: number) => void;

export interface Receiver {
  url: string;
  hooks: Hook[];
  /** requests received on a path */
  on(path: string): Hook[];
  /** makes `path` answer with `answer` */
  answer(path: string, answer: Answer): void;
  close(): Promise<void>;
}

export const status =
  (code: number, body = '') =>
  (res: ServerResponse) =>
    res.writeHead(code, { 'content-type': 'text/plain' }).end(body);

export async function startReceiver(): Promise<Receiver> {
  const hooks: Hook[] = [];
  const answers = new Map<string, Answer>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = hooks.filter((h) => h.path === path).length;
      hooks.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      (answers.get(path) ?? status(200, 'ok'))(res, n);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hooks,
    on: (path) => hooks.filter((h) => h.path === path),
    answer: (path, answer) => void answers.set(path, answer),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The verification the README documents, written out independently of the server's code: split
 * `Sendwell-Signature` into `t` and `v1`, compute HMAC-SHA256(secret, t + "." + raw body) in hex,
 * compare in constant time, and refuse timestamps more than five minutes away.
 */
export function verifySignature(secret: string, header: string | string[] | undefined, rawBody: string, nowMs = Date.now()): boolean {
  if (typeof header !== 'string') return false;
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  if (v1.length !== expected.length || !timingSafeEqual(Buffer.from(v1), Buffer.from(expected))) return false;
  return Math.abs(nowMs / 1000 - Number(t)) <= 300;
}

/** Polls `probe` until it returns something truthy (fails after `timeoutMs`). */
export async function eventually<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
