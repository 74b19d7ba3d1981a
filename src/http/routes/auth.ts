import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { SIGNUP_CONFIRMATION_TTL_MS } from '../../domain/users/users.service.ts';
import { SIGN_IN_LIMITS, SIGN_UP_LIMITS } from '../../rate-limit/sign-in-rate-limiter.ts';
import { ApiError } from '../errors.ts';
import { defineRoute, read, written } from '../route.ts';
import { Credentials, SessionInfo, SignUpBody, SignUpConfirmBody, SessionProbe, SignUpPending, SignUpStatus } from '../schemas/auth.ts';
import { TwoFactorRequired } from '../schemas/account-security.ts';
import { errorResponses, Read, Written } from '../schemas/common.ts';
import { SESSION_COOKIE, type SessionAuthenticator } from '../session-auth.ts';
import { invalidCredentials, sessionInfo, signInParts } from '../sign-in-parts.ts';
import { AcceptInvitationBody } from '../schemas/members.ts';

const tags = ['Dashboard sign-in'];

/**
 * Sign-in and sign-up for the dashboard: a session cookie, never an API key. These routes are
 * public to the key check and look at the session themselves (CSRF included, see session-auth.ts).
 */
export function authRoutes({ users, sso, invitations, signInLimiter, config }: Pick<HttpParts, 'users' | 'sso' | 'invitations' | 'signInLimiter' | 'config'>, sessions: SessionAuthenticator) {
  const { requireSession, refuseCrossSite, refuseIfWaiting, startSession, cookieOptions } = signInParts(config, sessions);

  return {
    signUp: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: 'Dashboard: ask for an account (Free plan) with its first user',
        description: `The first sign-up on an empty instance (the operator's, D17.7) creates the account at once, signs in (the httpOnly session cookie) and needs no mail. After it, sign-up is 403 SIGNUP_CLOSED unless the server runs with ALLOW_SIGNUP=true; then any later one answers 200 with confirmation "SENT" (D4: every success is 200), the same whether or not the address already has an account: a link valid for ${SIGNUP_CONFIRMATION_TTL_MS / 3_600_000} hours is mailed to it, and POST /api/v1/auth/signup/confirm with its token creates the account and signs in (an address that has an account is mailed a note instead). Attempts are limited per IP (${SIGN_UP_LIMITS.perIp} per ${SIGN_UP_LIMITS.perIpWindowSeconds / 60} minutes) and per e-mail (${SIGN_UP_LIMITS.perEmail} per ${SIGN_UP_LIMITS.perEmailWindowSeconds / 60} minutes).`,
        tags,
        body: SignUpBody,
        response: { 200: Written(Type.Union([SessionInfo, SignUpPending])), ...errorResponses(false, { 403: 'Sign-up is closed after the first account (SIGNUP_CLOSED), or posted from another site (CSRF_TOKEN_INVALID)' }) },
      },
      handler: async (req, reply) => {
        refuseCrossSite(req);
        refuseIfWaiting(reply, await signInLimiter.signUpAttempt(req.ip, req.body.email), 'sign-up attempts');
        const outcome = await users.signUp(actingOf(req), req.body);
        if (outcome.kind === 'signed-in') return written(startSession(reply, outcome.opened), 'account created; you are signed in');
        return written({ email: outcome.email, confirmation: 'SENT' as const }, 'check your mail: the link we sent creates your account and signs you in');
      },
    }),

    signUpStatus: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'Dashboard: whether sign-up is open (D17.7)',
        description: 'Public, so the sign-in page can offer sign-up only when it would be taken, and "Sign in with SSO" only when single sign-on is configured (D24.7).',
        tags,
        response: { 200: Read(SignUpStatus) },
      },
      handler: async () => {
        const firstAccount = await users.isEmptyInstance();
        return read({ open: firstAccount || (await users.signUpOpen()), first_account: firstAccount, sso: sso.configured });
      },
    }),

    confirmSignUp: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: "Dashboard: follow a sign-up's mailed link: create the account and sign in",
        description: 'Sets the httpOnly session cookie. An unknown or expired token is 404; an address that got an account meanwhile is 409.',
        tags,
        body: SignUpConfirmBody,
        response: { 200: Written(SessionInfo), ...errorResponses(false, { 403: 'Posted from another site (CSRF_TOKEN_INVALID)', 404: 'The link is unknown or has expired (NOT_FOUND)', 409: 'USER_ALREADY_EXISTS' }) },
      },
      handler: async (req, reply) => {
        refuseCrossSite(req);
        const opened = await users.confirmSignUp(actingOf(req), req.body.token);
        if (!opened) throw new ApiError(404, 'NOT_FOUND', 'this confirmation link is unknown or has expired; sign up again');
        return written(startSession(reply, opened), 'account created; you are signed in');
      },
    }),

    acceptInvitation: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: "Dashboard: accept an invitation (D24.3): join its account with a password and sign in",
        description:
          "Makes the user with the invitation's address and role, ends the invitation and sets the httpOnly session cookie, as sign-in does. The token is what follows /invite/ in the mailed link; it works 7 days and once.",
        tags,
        body: AcceptInvitationBody,
        response: {
          200: Written(SessionInfo),
          ...errorResponses(false, {
            400: 'INVALID_TOKEN (unknown, used, revoked or expired), or INVALID_REQUEST naming `password` (8-256 characters)',
            403: 'Posted from another site (CSRF_TOKEN_INVALID)',
            409: 'USER_ALREADY_EXISTS: the address became a user meanwhile (of another account); the invitation stays pending',
          }),
        },
      },
      handler: async (req, reply) => {
        refuseCrossSite(req);
        return written(startSession(reply, await invitations.accept(actingOf(req), req.body)), 'invitation accepted; you are signed in');
      },
    }),

    logIn: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: 'Dashboard: sign in with e-mail and password',
        description: `Sets the httpOnly session cookie. D24.6: for a user with two-factor sign-in, the right password answers \`{ two_factor_required: true, challenge }\` and sets no cookie; POST /api/v1/auth/login/totp with the challenge and a code (or a recovery code) then signs in. After ${SIGN_IN_LIMITS.freeFailures} failed sign-ins for one e-mail from one IP, each further attempt from there waits its turn (429 with Retry-After: 1 s, doubling per failure, at most ${SIGN_IN_LIMITS.maxDelaySeconds / 60} min) until one succeeds; one IP may fail ${SIGN_IN_LIMITS.perIpFailures} times per ${SIGN_IN_LIMITS.perIpWindowSeconds / 60} min across e-mails.`,
        tags,
        body: Credentials,
        response: { 200: Written(Type.Union([SessionInfo, TwoFactorRequired])), ...errorResponses(false, { 401: 'Wrong e-mail or password (INVALID_CREDENTIALS)', 403: 'Posted from another site (CSRF_TOKEN_INVALID)' }) },
      },
      handler: async (req, reply) => {
        refuseCrossSite(req);
        // Issue 14 M3: failures only, per e-mail and client IP, with a growing wait rather than a lockout.
        refuseIfWaiting(reply, await signInLimiter.beginSignIn(req.ip, req.body.email), 'failed sign-ins');
        const outcome = await users.logIn(actingOf(req), req.body);
        if (outcome.kind === 'failed') {
          await signInLimiter.signInFailed(req.ip, req.body.email);
          throw invalidCredentials('the e-mail or the password is wrong');
        }
        if (outcome.kind === 'two-factor') {
          // D24.6: the password was right, the sign-in is not done: its failures stay until a code is accepted.
          await signInLimiter.signInHalfway(req.ip, req.body.email);
          return written({ two_factor_required: true as const, challenge: outcome.challenge }, 'enter the code of your authenticator app');
        }
        await signInLimiter.signInSucceeded(req.ip, req.body.email);
        return written(startSession(reply, outcome.opened), 'signed in');
      },
    }),

    logOut: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: 'Dashboard: sign out (the session ends on the server)',
        tags,
        response: { 200: Written(SessionInfo), ...errorResponses(false, { 401: 'Not signed in (UNAUTHORIZED)', 403: 'X-CSRF-Token missing or wrong (CSRF_TOKEN_INVALID)' }) },
      },
      handler: async (req, reply) => {
        const session = await requireSession(req);
        await users.endSession(session.id);
        reply.clearCookie(SESSION_COOKIE, cookieOptions);
        return written(sessionInfo(session), 'signed out');
      },
    }),

    session: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'Dashboard: whether this browser is signed in, and its session when it is',
        description:
          "Issue 34: what the dashboard asks first. 200 either way (a browser logs every 4xx as a console error, and not being signed in is no error here): `signed_in` false and `session` null without a session, or `session` as GET /api/v1/auth/me answers it. Only the session cookie counts; beside an API key the answer is signed out.",
        tags,
        response: { 200: Read(SessionProbe) },
      },
      handler: async (req) => {
        const found = (await sessions.authenticate(req))?.session ?? null;
        return read({ signed_in: found !== null, session: found ? sessionInfo(found) : null });
      },
    }),

    me: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'Dashboard: the signed-in user, account and CSRF token',
        tags,
        response: { 200: Read(SessionInfo), ...errorResponses(false, { 401: 'Not signed in (UNAUTHORIZED)' }) },
      },
      handler: async (req) => read(sessionInfo(await requireSession(req))),
    }),
  };
}
