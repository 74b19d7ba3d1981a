/**
 * Issue 14 M2: Fastify switches Node's request timeouts off, and slow bodies (to the public
 * sign-in route too) were still open after 100 s. A request must be in within
 * HTTP_REQUEST_TIMEOUT_MS (else 408 and the connection closes), a silent connection is closed
 * after HTTP_CONNECTION_TIMEOUT_MS, an idle kept-alive one after HTTP_KEEP_ALIVE_TIMEOUT_MS.
 * The test server runs with short limits; the tests wait (bounded) for the close, never time it.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ HTTP_REQUEST_TIMEOUT_MS: '600', HTTP_CONNECTION_TIMEOUT_MS: '1500', HTTP_KEEP_ALIVE_TIMEOUT_MS: '300' });
});
afterAll(() => server?.close());

/** What came back on a raw connection, and whether the server closed it before `boundMs`. */
interface Exchange {
  socket: Socket;
  received: () => string;
  /** resolves true when the server closes the connection, false if it is still open after boundMs */
  closedWithin(boundMs: number): Promise<boolean>;
}

async function open(): Promise<Exchange> {
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    received: () => data,
    closedWithin: (boundMs) => Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), boundMs).unref())]),
  };
}

/** Writes one byte of `text` every `everyMs` until the connection closes (or the text runs out). */
function trickle(x: Exchange, text: string, everyMs = 100): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (x.socket.destroyed || i >= text.length) return clearInterval(timer);
    x.socket.write(text[i++]);
  }, everyMs);
  return () => clearInterval(timer);
}

const host = () => new URL(server.url).host;
const BOUND_MS = 10_000;

/** Sends `head` at once and trickles `slowPart`: the server must answer 408 and close the connection. */
async function expectCutOffWith408(head: string, slowPart: string) {
  const x = await open();
  x.socket.write(head);
  const stop = trickle(x, slowPart);
  try {
    expect(await x.closedWithin(BOUND_MS), 'the connection is still open').toBe(true);
    expect(x.received()).toMatch(/^HTTP\/1\.1 408 /);
  } finally {
    stop();
    x.socket.destroy();
  }
}

describe('M2: slow and idle connections are cut off', () => {
  it('a body trickled to the public sign-in route gets 408 and the connection is closed', async () => {
    const body = JSON.stringify({ email: 'slow@example.com', password: 'x'.repeat(200) });
    await expectCutOffWith408(`POST /api/v1/auth/login HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body);
  });

  it('headers trickled one byte at a time get 408 and the connection is closed', async () => {
    await expectCutOffWith408('', `GET /health HTTP/1.1\r\nHost: ${host()}\r\nX-Slow: ${'a'.repeat(500)}\r\n\r\n`);
  });

  it('a connection that never sends anything is closed', async () => {
    const x = await open();
    try {
      expect(await x.closedWithin(BOUND_MS), 'the connection is still open').toBe(true);
    } finally {
      x.socket.destroy();
    }
  });

  it('an idle kept-alive connection is closed after its request was answered', async () => {
    const x = await open();
    try {
      x.socket.write(`GET /health HTTP/1.1\r\nHost: ${host()}\r\nConnection: keep-alive\r\n\r\n`);
      expect(await x.closedWithin(BOUND_MS), 'the connection is still open').toBe(true);
      expect(x.received()).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      x.socket.destroy();
    }
  });

  it('an ordinary request is unaffected', async () => {
    expect((await server.request('GET', '/health')).status).toBe(200);
  });
});
