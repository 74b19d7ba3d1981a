import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { permissionsOf } from '../domain/users/roles.ts';
import { SESSION_TTL_MS } from '../domain/users/session-token.ts';
import type { OpenedSession, Session } from '../domain/users/users.service.ts';
import { isSameOrigin } from './csrf.ts';
import { ApiError } from './errors.ts';
import { csrfRefused, requireSession, SESSION_COOKIE, type SessionAuthenticator } from './session-auth.ts';

/** What the dashboard's session routes share (sign-in, sign-up, own security). */
export function sessionInfo(s: Session) {
  return { user: { ...s.user, two_factor: s.two_factor }, account: s.account, csrf_token: s.csrf_token, expires_at: s.expires_at, permissions: [...permissionsOf(s.user.role)] };
}

/** The session cookie every sign-in sets (D24.7's SSO callback too). */
export function setSessionCookie(reply: FastifyReply, publicUrl: string, opened: OpenedSession): void {
  const secure = publicUrl.startsWith('https://');
  reply.setCookie(SESSION_COOKIE, opened.token, { httpOnly: true, sameSite: 'lax', path: '/', secure, maxAge: Math.floor(SESSION_TTL_MS / 1000) });
}

export const invalidCredentials = (message: string) => new ApiError(401, 'INVALID_CREDENTIALS', message);

/**
 * The helpers of routes that are public to the key check and look at the session themselves: an
 * API key never reaches them (401, as for /api/v1/auth/me), a session's writes need its CSRF token.
 */
export function signInParts(config: Pick<Config, 'publicUrl'>, sessions: SessionAuthenticator) {
  const secure = config.publicUrl.startsWith('https://');
  const cookieOptions = { httpOnly: true, sameSite: 'lax', path: '/', secure } as const;
  return {
    cookieOptions,
    /** The session a `sessionOnly` route found before its body, else found now (401 without one). */
    async requireSession(req: FastifyRequest): Promise<Session> {
      return req.dashboardSession ?? requireSession(sessions, req);
    },
    /** Sign-in and sign-up forms posted from another site are refused (login CSRF). */
    refuseCrossSite(req: FastifyRequest) {
      if (!isSameOrigin(req.headers.origin, req.headers.host, config.publicUrl)) throw csrfRefused('the request comes from another site (Origin)');
    },
    /** 429 with Retry-After when the limiter said to wait. */
    refuseIfWaiting(reply: FastifyReply, retryAfter: number | null, what: string) {
      if (retryAfter === null) return;
      reply.header('Retry-After', retryAfter);
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `too many ${what}; wait and try again`, { retryAfter });
    },
    startSession(reply: FastifyReply, opened: OpenedSession) {
      setSessionCookie(reply, config.publicUrl, opened);
      return sessionInfo(opened.session);
    },
  };
}
