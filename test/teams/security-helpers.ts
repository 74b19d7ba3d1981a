/**
 * D24.4-D24.6 in tests: dashboard users made as the CLI makes them, signed in through the API,
 * and requests made with their session (cookie and CSRF token).
 */
import { expect } from 'vitest';
import type { ApiResponse, RequestOptions, TestServer } from '../helpers/server.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

export const PASSWORD = 'the first password of this user';
export const PUBLIC_URL = 'http://sendwell.test';

let n = 0;
export const uniqueEmail = (tag = 'user') => `${tag}${++n}-${Date.now()}@example.com`;

export interface SignedIn {
  cookie: string;
  csrf: string;
  body: any;
}

export interface TestUser {
  id: number;
  accountId: number;
  email: string;
  password: string;
}

/** The session cookie's `name=value` from a response's Set-Cookie header, or null. */
export const cookieOf = (res: ApiResponse) => /(sendwell_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? null;

/** A user in an account of its own, as `sendwell users create` makes one. */
export async function makeUser(server: TestServer, tag = 'user'): Promise<TestUser> {
  const account = await server.createAccount({ plan: 'free' });
  const email = uniqueEmail(tag);
  const user = await server.core.users.create(SYSTEM_ACTING, account.id, { email, password: PASSWORD });
  return { id: user.id, accountId: account.id, email, password: PASSWORD };
}

export const logIn = (server: TestServer, email: string, password: string, headers: Record<string, string> = {}) =>
  server.request('POST', '/api/v1/auth/login', { body: { email, password }, headers });

/** Signs in with the password (no two-factor): the session's cookie and CSRF token. */
export async function signIn(server: TestServer, user: { email: string; password: string }, headers: Record<string, string> = {}): Promise<SignedIn> {
  const res = await logIn(server, user.email, user.password, headers);
  expect(res.status, res.text).toBe(200);
  const cookie = cookieOf(res);
  expect(cookie).not.toBeNull();
  return { cookie: cookie!, csrf: res.body.data.csrf_token, body: res.body };
}

/** A request made with the session, the CSRF token on writes. */
export function withSession(server: TestServer, s: SignedIn, method: string, path: string, opts: RequestOptions = {}) {
  return server.request(method, path, { ...opts, headers: { cookie: s.cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': s.csrf }), ...opts.headers } });
}

/** Whether the session still works. */
export async function isLive(server: TestServer, s: SignedIn): Promise<boolean> {
  const res = await server.request('GET', '/api/v1/auth/me', { headers: { cookie: s.cookie } });
  if (res.status !== 200 && res.status !== 401) throw new Error(`me answered ${res.status}`);
  return res.status === 200;
}

/** The audit entries of an account, oldest first. */
export function auditOf(server: TestServer, accountId: number) {
  return server.db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}
