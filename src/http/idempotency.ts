import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isValidKey, MAX_KEY_LENGTH, requestFingerprint } from '../domain/idempotency/idempotency.ts';
import type { Finish, IdempotencyService, KeyedRequest } from '../domain/idempotency/idempotency.service.ts';
import { ApiError, ReplayedAnswer } from './errors.ts';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

declare module 'fastify' {
  interface FastifyRequest {
    /** D25.6: the request runs under its Idempotency-Key (set by the hook below, cleared once finished) */
    keyed?: KeyedRequest;
  }
}

/** Every authenticated POST under /api/v1 and /v1 (D25.6); public routes ignore the header. */
function takesKey(req: FastifyRequest): boolean {
  const url = req.routeOptions.url;
  return req.method === 'POST' && req.auth !== null && url !== undefined && (url.startsWith('/api/v1/') || url.startsWith('/v1/'));
}

/** The key, or a 400 for an empty, over-long, non-ASCII, or repeated header. */
function keyOf(req: FastifyRequest): string | null {
  const values = req.raw.headersDistinct[IDEMPOTENCY_KEY_HEADER];
  if (values === undefined) return null;
  const key = values[0];
  if (values.length !== 1 || !isValidKey(key)) {
    throw new ApiError(400, 'IDEMPOTENCY_KEY_INVALID', `the Idempotency-Key header must be one value of 1-${MAX_KEY_LENGTH} printable ASCII characters`);
  }
  return key;
}

function sendReplay(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header(REPLAYED_HEADER, 'true').type('application/json; charset=utf-8').send(body);
}

function refusal(outcome: Exclude<Finish, { kind: 'own' | 'replay' }>): ApiError {
  if (outcome.kind === 'reused') return new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for another request (method, path or body) in the last 24 hours');
  return new ApiError(409, 'IDEMPOTENCY_KEY_IN_PROGRESS', 'a request with this Idempotency-Key is still running; retry after the number of seconds in Retry-After');
}

/**
 * D25.6 in the request pipeline, after authentication, rate limiting and the account's turn (the
 * auth hook, onRequest) and once the body is read:
 * - preValidation: a kept answer is replayed (same request) or refused (another); a running one is
 *   409; otherwise (once the body is valid, preHandler) the handler runs inside the request's
 *   scope (one transaction, see db/request-transaction.ts). An upload is admitted once its file is
 *   read (admitUpload), inside the handler, before anything is stored;
 * - onSend, before a byte is sent: the transaction commits, with the answer under the key when it
 *   is 2xx. An answer that lost a race to another instance becomes the winner's replay.
 * A replay went through the auth hook like any request: it counts in rate limits and key usage.
 */
export function registerIdempotency(app: FastifyInstance, idempotency: IdempotencyService): void {
  // Callback hooks that return at once without the header: every request passes through them, and
  // an async hook costs each a promise and a microtask turn.
  // Before the schema: another body under a kept key is 422 even when it would not be valid.
  app.addHook('preValidation', (req, reply, done) => {
    if (req.headers[IDEMPOTENCY_KEY_HEADER] === undefined || !takesKey(req)) return done();
    admit(idempotency, req, reply).then((replied) => (replied ? undefined : done()), done);
  });
  // The handler runs inside the scope: the scope covers what `done` starts.
  app.addHook('preHandler', (req, _reply, done) => {
    if (req.keyed) req.keyed.run(done);
    else done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    const keyed = req.keyed;
    if (!keyed) return done(null, payload);
    req.keyed = undefined;
    finish(keyed, reply, payload).then((answer) => done(null, answer), (err: Error) => done(err));
  });
}

/** Admits the request under its key; true when it has been answered (a replay). */
async function admit(idempotency: IdempotencyService, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const key = keyOf(req);
  if (key === null) return false;
  const keyed = idempotency.open(req.auth.accountId, key);
  if (!req.routeOptions.config.multipart) {
    const admission = await keyed.admit(requestFingerprint(req.method, req.url, req.body));
    if (admission.kind === 'replay') {
      sendReplay(reply, admission.status, admission.body);
      return true;
    }
    if (admission.kind === 'in-progress') reply.header('Retry-After', 1);
    if (admission.kind !== 'run') throw refusal(admission);
  }
  // Ended in onSend, which runs once the handler is done even when the client has gone (a retry
  // after a client's timeout then finds the answer kept); never on the client's leaving, which
  // would commit a running request without its key and let that retry run it again.
  req.keyed = keyed;
  return false;
}

/** Ends the request's transaction before its answer leaves; the answer, or the one that replaces it. */
async function finish(keyed: KeyedRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (keyed.admission === 'in-progress') reply.header('Retry-After', 1);
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  const outcome = await keyed.finish(reply.statusCode, body);
  if (outcome.kind === 'own') return payload;
  if (outcome.kind === 'replay') {
    reply.code(outcome.status).header(REPLAYED_HEADER, 'true');
    return outcome.body;
  }
  if (outcome.kind === 'in-progress') reply.header('Retry-After', 1);
  throw refusal(outcome);
}

/**
 * D25.6 for an upload (multipart, read by its handler): admits the request under its key once the
 * file is read, by the file's bytes and name in place of a JSON body. A replay or refusal is
 * thrown, so the handler stores nothing; the error handler answers it.
 */
export async function admitUpload(req: FastifyRequest, file: { bytes: Buffer; filename: string | undefined }): Promise<void> {
  const keyed = req.keyed;
  if (!keyed || keyed.admission !== null) return;
  const upload = { filename: file.filename ?? null, sha256: createHash('sha256').update(file.bytes).digest('hex') };
  const admission = await keyed.admit(requestFingerprint(req.method, req.url, upload));
  if (admission.kind === 'replay') throw new ReplayedAnswer(admission.status, admission.body);
  if (admission.kind !== 'run') throw refusal(admission);
}
