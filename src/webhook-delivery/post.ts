import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { VettedAddress } from '../domain/outbound-webhooks/destination-guard.ts';

export interface PostLimits {
  /** connecting, sending and reading the whole answer must finish within this (WEBHOOK_TIMEOUT_MS) */
  timeoutMs: number;
  /** more of the answer than this is not read: the connection is closed there */
  maxResponseBytes: number;
}

export interface PostAnswer {
  statusCode: number;
  /** the answer's body as far as it was read, as text */
  body: string;
  /** true when the receiver sent more than maxResponseBytes */
  truncated: boolean;
}

/** The receiver did not answer in time (or its answer did not finish). */
export class PostTimeout extends Error {}

/** A lookup that answers every name with the address already checked: the connection cannot land elsewhere. */
function pinnedLookup(target: VettedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (err: null, addresses: VettedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

/**
 * POSTs a body to `url`, connecting to the vetted address only (DNS is not asked again, so a
 * rebinding answer between the check and the connection changes nothing; TLS still verifies the
 * certificate against the URL's host name). Redirects are not followed: a 3xx is just an answer.
 * A slow or endless receiver is cut off by the timeout and the response size cap.
 */
export function postPinned(url: URL, target: VettedAddress, headers: Record<string, string>, body: string, limits: PostLimits): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(target),
      agent: false, // a connection per delivery: nothing pooled outlives the pin or the timeout
    });
    const timer = setTimeout(() => req.destroy(new PostTimeout(`no complete answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      settle();
    };
    req.on('error', (err) => finish(() => reject(err)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (truncated: boolean): PostAnswer => ({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), truncated });
      res.on('data', (chunk: Buffer) => {
        const room = limits.maxResponseBytes - size;
        chunks.push(chunk.subarray(0, Math.max(room, 0)));
        size += chunk.length;
        if (size > limits.maxResponseBytes) {
          finish(() => resolve(answer(true)));
          req.destroy();
        }
      });
      res.on('end', () => finish(() => resolve(answer(false))));
      // An error after the status arrived (a reset mid-body, our own timeout) still fails the attempt.
      res.on('error', (err) => finish(() => reject(err)));
    });
    req.end(body);
  });
}
