/**
 * D24: members for tests. An account's first user (its owner) is made as the CLI makes it; every
 * other member through an invitation, accepted through the API like a person would: the link's
 * token read from the mail (the SMTP sink's, or the dev inbox without SMTP_URL).
 */
import { expect } from 'vitest';
import type { Role } from '../../src/domain/users/roles.ts';
import type { ApiResponse, RequestOptions, TestServer } from '../helpers/server.ts';
import type { SmtpSink } from '../sending/smtp-sink.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

export const PASSWORD = 'correct horse battery staple';

/** A signed-in member: its cookie and CSRF token, for requests as it. */
export interface Member {
  id: number;
  email: string;
  role: Role;
  cookie: string;
  csrf: string;
}

export const cookieOf = (res: ApiResponse) => /(sendwell_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? null;

/** The token in an invitation's link `{PUBLIC_URL}/invite/{token}`. */
export function inviteTokenIn(text: string): string {
  const m = /\/invite\/([A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error(`no invitation link in ${text}`);
  return m[1];
}

/** Requests as a member: the session cookie, and X-CSRF-Token on every request (reads ignore it). */
export function as(server: TestServer, member: Pick<Member, 'cookie' | 'csrf'>) {
  return (method: string, path: string, opts: RequestOptions = {}) =>
    server.request(method, path, { ...opts, headers: { cookie: member.cookie, 'x-csrf-token': member.csrf, ...opts.headers } });
}

export function signedIn(res: ApiResponse): Member {
  expect(res.status, res.text).toBe(200);
  const cookie = cookieOf(res);
  expect(cookie).not.toBeNull();
  const { user, csrf_token } = res.body.data;
  return { id: user.id, email: user.email, role: user.role, cookie: cookie!, csrf: csrf_token };
}

/** The account's first user, made as `sendwell users create` makes it (D24.1: its owner), signed in. */
export async function firstOwner(server: TestServer, accountId: number, email: string): Promise<Member> {
  await server.core.users.create(SYSTEM_ACTING, accountId, { email, password: PASSWORD });
  return signedIn(await server.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } }));
}

/** The newest invitation link's token mailed to `email`: from the sink when given, else from the dev inbox. */
export async function mailedToken(server: TestServer, email: string, sink?: SmtpSink): Promise<string> {
  if (sink) {
    const mails = sink.to(email);
    expect(mails.length, `a mail to ${email}`).toBeGreaterThan(0);
    return inviteTokenIn(mails.at(-1)!.text!);
  }
  const row = await server.db.selectFrom('dev_inbox').select('text').where('to_address', '=', email).orderBy('id', 'desc').executeTakeFirstOrThrow();
  return inviteTokenIn(row.text!);
}

export const accept = (server: TestServer, token: string, password = PASSWORD) => server.request('POST', '/api/v1/auth/invitations/accept', { body: { token, password } });

/** Invites `email` with `role` as `inviter` (a member, or a key), accepts the mailed link: the new member, signed in. */
export async function join(server: TestServer, inviter: Member | { key: string }, email: string, role: Role, sink?: SmtpSink): Promise<Member> {
  const body = { email, role };
  const invited = 'key' in inviter ? await server.request('POST', '/api/v1/invitations', { key: inviter.key, body }) : await as(server, inviter)('POST', '/api/v1/invitations', { body });
  expect(invited.status, invited.text).toBe(200);
  return signedIn(await accept(server, await mailedToken(server, email, sink)));
}
