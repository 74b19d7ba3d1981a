/**
 * Dashboard sign-up for tests (issue 14 L5): the first sign-up on an empty instance is signed in
 * at once; any later one is confirmed through the link the service mailed (read from the dev
 * inbox, where mail goes without SMTP_URL).
 */
import { expect } from 'vitest';
import type { ApiResponse, TestServer } from '../helpers/server.ts';

/** The session cookie's `name=value` from a response's Set-Cookie header, or null. */
export const cookieOf = (res: ApiResponse) => /(sendwell_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? null;

/** The token of a confirmation link in a mail's text: `<PUBLIC_URL>/signup/confirm#<token>`. */
export const tokenIn = (text: string) => /\/signup\/confirm#([A-Za-z0-9_-]+)/.exec(text)![1];

/** Signs up and, when the answer says a confirmation was SENT, follows the newest link mailed to the address: the signed-in answer (200). */
export async function signUpAndConfirm(server: TestServer, body: { email: string; password: string; account_name?: string | null }): Promise<ApiResponse> {
  const asked = await server.request('POST', '/api/v1/auth/signup', { body });
  if (asked.body?.data?.confirmation !== 'SENT') return asked;
  const mail = await server.db.selectFrom('dev_inbox').select('text').where('to_address', '=', body.email.trim().toLowerCase()).orderBy('id', 'desc').executeTakeFirstOrThrow();
  const confirmed = await server.request('POST', '/api/v1/auth/signup/confirm', { body: { token: tokenIn(mail.text!) } });
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed;
}
