import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyService } from '../domain/api-keys/api-keys.service.ts';
import { grants } from '../domain/api-keys/permissions.ts';
import type { UsageRecorder } from '../domain/api-keys/usage-recorder.ts';
import { toApiTimestamp } from '../domain/shared/time.ts';
import type { Plan } from '../domain/accounts/plans.ts';
import type { AccountRateLimiter, RateDecision, WindowState } from '../rate-limit/account-rate-limiter.ts';
import { isDashboardRequest } from './dashboard-paths.ts';
import type { AccountShare } from './account-share.ts';
import { ApiError, permissionDenied, unauthorized } from './errors.ts';
import type { SessionAuthenticator } from './session-auth.ts';

/**
 * D8: the key may come as `X-API-Key: <key>` or `Authorization: Bearer <key>`. Any other scheme,
 * an empty value, repeated headers, or the two headers disagreeing is a malformed request: null.
 */
export function extractKey(headers: FastifyRequest['headers']): string | null {
  const xApiKey = headers['x-api-key'];
  const authorization = headers.authorization;
  if (Array.isArray(xApiKey)) return null;
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const m = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!m) return null;
    bearer = m[1];
  }
  const direct = xApiKey?.trim();
  if (direct !== undefined && bearer !== undefined && direct !== bearer) return null;
  const key = bearer ?? direct;
  return key ? key : null;
}

function setRateHeaders(reply: FastifyReply, minute: WindowState) {
  reply.header('RateLimit-Limit', minute.limit);
  reply.header('RateLimit-Remaining', minute.remaining);
  reply.header('RateLimit-Reset', Math.ceil(minute.resetMs / 1000));
}

/** D10's headers on the answer, and its 429 when the budget is spent. */
function enforce(reply: FastifyReply, decision: RateDecision | null) {
  if (!decision) return;
  setRateHeaders(reply, decision.minute);
  if (decision.allowed) return;
  const retryAfter = Math.max(1, Math.ceil(decision.exceeded.resetMs / 1000));
  reply.header('Retry-After', retryAfter);
  throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'rate limit exceeded; retry after the number of seconds in Retry-After', {
    retryAfter,
    limit: decision.exceeded.limit,
    remaining: decision.exceeded.remaining,
    // Rounded up: D1's form has no fraction, and the reset must not be shown earlier than it is.
    resetAt: toApiTimestamp(new Date(Math.ceil((Date.now() + decision.exceeded.resetMs) / 1000) * 1000)),
  });
}

/**
 * Issue 28: the request waits for its account's turn on this thread (account-share.ts). Refused
 * when the account already has as many requests waiting as it may: 429, as a spent budget is.
 */
async function waitForTurn(share: AccountShare, accountId: number, reply: FastifyReply) {
  const turn = share.enter(accountId, reply.raw);
  if (turn === null) return;
  if (turn === 'refused') {
    // D10's four fields, for the account's requests held at once rather than a time window.
    reply.header('Retry-After', 1);
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `this account already has ${share.waitingPerAccount} requests waiting for their turn; retry after the number of seconds in Retry-After`, {
      retryAfter: 1,
      limit: share.waitingPerAccount,
      remaining: 0,
      resetAt: toApiTimestamp(new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000)),
    });
  }
  await turn;
}

/**
 * Runs on every request before its body is parsed, so the order is D8's: authentication, then
 * rate limiting (counted only for authenticated requests), then permission, then the account's
 * turn (issue 28), then validation.
 * Routes marked 'public' skip it; unknown routes do not (no key: 401, then 404).
 */
export function registerAuth(app: FastifyInstance, deps: { apiKeys: ApiKeyService; usage: UsageRecorder; rateLimiter: AccountRateLimiter; sessions: SessionAuthenticator; accountShare: AccountShare }) {
  const hook = async (req: FastifyRequest, reply: FastifyReply) => {
    // `config` is absent for requests the router could not match at all (see frameworkErrors in app.ts).
    const permissions = req.routeOptions.config?.permissions;
    if (permissions === 'public') return;
    // D17.10: a browser asking for a page no route has gets the dashboard from the not-found handler.
    if (req.routeOptions.url === undefined && isDashboardRequest(req.method, req.url, req.headers.accept)) return;
    const raw = extractKey(req.headers);
    const key = raw === null ? null : await deps.apiKeys.authenticate(raw);
    if (!key) {
      // The dashboard: tried only when there is no key, so the key path does no extra work. A
      // session holds its role's permissions (D24.1); its writes need the CSRF token (session-auth.ts).
      const session = raw === null ? await deps.sessions.authenticate(req) : null;
      if (!session) throw unauthorized();
      req.auth = session;
      // Issue 14 L1: metered per account like keys, on a separate, larger budget (account-rate-limiter.ts).
      enforce(reply, await deps.rateLimiter.check(session.accountId, session.session.account.plan as Plan, 'session'));
      if (permissions && !req.routeOptions.config.anySession && !grants(session.permissions, permissions)) throw permissionDenied(permissions, session.session.user.role);
      await waitForTurn(deps.accountShare, session.accountId, reply);
      return;
    }
    req.auth = key;
    deps.usage.record(key.keyId, req.method, req.routeOptions.url ?? null);
    enforce(reply, await deps.rateLimiter.check(key.accountId, key.plan));
    if (permissions && !grants(key.permissions, permissions)) throw permissionDenied(permissions);
    await waitForTurn(deps.accountShare, key.accountId, reply);
  };
  app.addHook('onRequest', hook);
  // Returned so requests that never reach the hooks can still authenticate first.
  return hook;
}
