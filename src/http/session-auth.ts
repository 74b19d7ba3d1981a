import { fastifyCookie } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { Session, UserService } from '../domain/users/users.service.ts';
import { permissionsOf } from '../domain/users/roles.ts';
import { csrfProblem } from './csrf.ts';
import { ApiError } from './errors.ts';

export const SESSION_COOKIE = 'sendwell_session';

/**
 * A request signed in through the dashboard, no key. D24.1: it holds its user's role's
 * permissions, read with the session on every request, so a role change or a removal applies to
 * live sessions at once.
 */
export interface SessionAuth {
  keyId: null;
  accountId: number;
  session: Session;
  permissions: ReadonlySet<string>;
}

export const csrfRefused = (why: string) => new ApiError(403, 'CSRF_TOKEN_INVALID', why);

/** The request's dashboard session, or 401 (an API key never has one: the cookie is not read beside a key). */
export async function requireSession(sessions: SessionAuthenticator, req: FastifyRequest): Promise<Session> {
  const auth = await sessions.authenticate(req);
  if (!auth) throw new ApiError(401, 'UNAUTHORIZED', 'sign in first: this endpoint needs a dashboard session');
  return auth.session;
}

/**
 * The dashboard's way in: the session cookie, asked for only when the request carries no API-key
 * header at all (so key requests never pay for it, and a bad key is never rescued by a cookie).
 * State-changing requests must echo the session's CSRF token (see csrf.ts).
 */
export class SessionAuthenticator {
  constructor(
    private readonly users: UserService,
    private readonly publicUrl: string,
  ) {}

  /** The session's token from the Cookie header, or null. */
  tokenOf(req: FastifyRequest): string | null {
    const header = req.headers.cookie;
    if (!header || req.headers['x-api-key'] !== undefined || req.headers.authorization !== undefined) return null;
    return fastifyCookie.parse(header)[SESSION_COOKIE] ?? null;
  }

  async authenticate(req: FastifyRequest): Promise<SessionAuth | null> {
    const token = this.tokenOf(req);
    const session = token ? await this.users.sessionFor(token) : null;
    if (!session) return null;
    const problem = csrfProblem({
      method: req.method,
      origin: req.headers.origin,
      host: req.headers.host,
      publicUrl: this.publicUrl,
      token: req.headers['x-csrf-token'],
      expected: session.csrf_token,
    });
    if (problem) throw csrfRefused(problem);
    return { keyId: null, accountId: session.account.id, session, permissions: permissionsOf(session.user.role) };
  }
}
