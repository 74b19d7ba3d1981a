import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PASSWORD_RESET_TTL_MS, PASSWORD_RESETS_PER_HOUR } from '../../domain/users/password-reset.service.ts';
import { TOTP_CHALLENGE_TTL_MS } from '../../domain/users/sign-in-audit.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { HttpParts } from '../http-parts.ts';
import { ApiError } from '../errors.ts';
import { defineRoute, read, written } from '../route.ts';
import { SessionInfo } from '../schemas/auth.ts';
import {
  ChangePasswordBody,
  OwnSession,
  PasswordChanged,
  PasswordResetBody,
  PasswordResetConfirmBody,
  PasswordResetRequested,
  RecoveryCodes,
  SessionEnded,
  SessionIdParams,
  TotpCodeBody,
  TotpDisableBody,
  TotpSetup,
  TotpSignInBody,
  TwoFactorState,
} from '../schemas/account-security.ts';
import { errorResponses, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import type { SessionAuthenticator } from '../session-auth.ts';
import { invalidCredentials, signInParts } from '../sign-in-parts.ts';

const tags = ['Dashboard sign-in'];
const sessionOnly = 'A dashboard session only (with X-CSRF-Token on writes): an API key is 401 UNAUTHORIZED here, as on /api/v1/auth/me, since these act on the signed-in person.';
const notSignedIn = { 401: 'Not signed in, or an API key (UNAUTHORIZED)', 403: 'X-CSRF-Token missing or wrong (CSRF_TOKEN_INVALID)' };
const crossSite = { 403: 'Posted from another site (CSRF_TOKEN_INVALID)' };

/**
 * D24.4-D24.6: "forgot password", the signed-in user's own password and sessions, and two-factor
 * sign-in. All public to the key check: the reset and the second sign-in step need no session, the
 * others read the session themselves, as /api/v1/auth/me does.
 */
export function accountSecurityRoutes(
  { passwordResets, ownSecurity, twoFactor, signInLimiter, config }: Pick<HttpParts, 'passwordResets' | 'ownSecurity' | 'twoFactor' | 'signInLimiter' | 'config'>,
  sessions: SessionAuthenticator,
) {
  const { requireSession, refuseCrossSite, refuseIfWaiting, startSession } = signInParts(config, sessions);

  /**
   * A password checked on behalf of a signed-in user counts in the sign-in throttle (D17) like a
   * sign-in with it, so a borrowed session cannot guess the password at leisure.
   */
  async function throttledPasswordCheck<T>(req: FastifyRequest, reply: FastifyReply, email: string, run: () => Promise<T>): Promise<T> {
    refuseIfWaiting(reply, await signInLimiter.beginSignIn(req.ip, email), 'failed password checks');
    try {
      const result = await run();
      await signInLimiter.signInSucceeded(req.ip, email);
      return result;
    } catch (err) {
      if (err instanceof DomainError && err.code === 'INVALID_CREDENTIALS') await signInLimiter.signInFailed(req.ip, email);
      else await signInLimiter.signInHalfway(req.ip, email);
      throw err;
    }
  }

  return {
    requestReset: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'Dashboard: mail a link to reset a forgotten password (D24.4)',
        description: `Answers the same 200 whether or not the address is a user's. A user gets a mail with {PUBLIC_URL}/reset/{token}, valid ${PASSWORD_RESET_TTL_MS / 60_000} minutes and usable once; at most ${PASSWORD_RESETS_PER_HOUR} such mails per address per hour (a further request answers the same and mails nothing).`,
        tags,
        body: PasswordResetBody,
        response: { 200: Written(PasswordResetRequested), ...errorResponses(false, crossSite) },
      },
      handler: async (req) => {
        refuseCrossSite(req);
        // The mail goes after the answer: how long an SMTP server takes must not tell that the address is a user's.
        await passwordResets.request(req.body.email);
        return written({ email: req.body.email }, 'if this address has a Sendwell account, a link to reset its password is on its way');
      },
    }),

    confirmReset: defineRoute({
      permissions: 'public',
      schema: {
        summary: "Dashboard: set a new password with a reset link's token (D24.4)",
        description: 'Ends every session of the user and signs nobody in: sign in with the new password. An unknown, used or expired token: 400 INVALID_TOKEN.',
        tags,
        body: PasswordResetConfirmBody,
        response: { 200: Written(PasswordChanged), ...errorResponses(false, { 400: 'The password is not 8-256 characters (INVALID_REQUEST), or the token is unknown, used or expired (INVALID_TOKEN)', ...crossSite }) },
      },
      handler: async (req) => {
        refuseCrossSite(req);
        await passwordResets.confirm(actingOf(req), req.body);
        return written({ password_changed: true as const }, 'password changed; sign in with it');
      },
    }),

    changePassword: defineRoute({
      permissions: 'public',
      sessionOnly: true,
      schema: {
        summary: "Dashboard: change the signed-in user's password (D24.5)",
        description: `Ends the user's other sessions; this one stays. A wrong current password: 400 INVALID_CREDENTIALS (it counts in the sign-in throttle). ${sessionOnly}`,
        tags,
        body: ChangePasswordBody,
        response: { 200: Written(PasswordChanged), ...errorResponses(false, { 400: 'new_password is not 8-256 characters (INVALID_REQUEST), or current_password is wrong (INVALID_CREDENTIALS)', ...notSignedIn }) },
      },
      handler: async (req, reply) => {
        const session = await requireSession(req);
        await throttledPasswordCheck(req, reply, session.user.email, () => ownSecurity.changePassword(actingOf(req), session, req.body));
        return written({ password_changed: true as const }, 'password changed; your other sessions have ended');
      },
    }),

    sessions: defineRoute({
      permissions: 'public',
      sessionOnly: true,
      schema: {
        summary: "Dashboard: the signed-in user's sessions, newest first (D24.5)",
        description: sessionOnly,
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('sessions', OwnSession)), ...errorResponses(false, notSignedIn) },
      },
      handler: async (req) => read(await ownSecurity.sessions(await requireSession(req), req.query)),
    }),

    endSession: defineRoute({
      permissions: 'public',
      sessionOnly: true,
      schema: {
        summary: 'Dashboard: end one of your sessions (D24.5)',
        description: `Ending the current one signs this browser out. Another user's session or an unknown id: 404 SESSION_NOT_FOUND. ${sessionOnly}`,
        tags,
        params: SessionIdParams,
        response: { 200: Written(SessionEnded), ...errorResponses(false, { ...notSignedIn, 404: 'SESSION_NOT_FOUND' }) },
      },
      handler: async (req) => {
        await ownSecurity.endSession(actingOf(req), await requireSession(req), req.params.session_id);
        return written({ id: req.params.session_id }, 'session ended');
      },
    }),

    totpSetup: defineRoute({
      permissions: 'public',
      sessionOnly: true,
      schema: {
        summary: 'Dashboard: a new TOTP secret for two-factor sign-in (D24.6)',
        description: `Two-factor stays off until POST /api/v1/auth/totp/enable takes a code of this secret; a new setup replaces one not enabled. While it is on: 409 INVALID_STATE. ${sessionOnly}`,
        tags,
        response: { 200: Written(TotpSetup), ...errorResponses(false, { ...notSignedIn, 409: 'Two-factor is on already (INVALID_STATE)' }) },
      },
      handler: async (req) => written(await twoFactor.setup((await requireSession(req)).user), 'scan the QR code, then enable two-factor with a code from the app'),
    }),

    totpEnable: defineRoute({
      permissions: 'public',
      sessionOnly: true,
      schema: {
        summary: 'Dashboard: turn two-factor sign-in on with a code (D24.6)',
        description: `Answers the 10 recovery codes, shown only now. The code given counts as used. A wrong code: 400 INVALID_CREDENTIALS; no setup, or on already: 409 INVALID_STATE. ${sessionOnly}`,
        tags,
        body: TotpCodeBody,
        response: { 200: Written(RecoveryCodes), ...errorResponses(false, { 400: 'Invalid request (INVALID_REQUEST), or a wrong code (INVALID_CREDENTIALS)', ...notSignedIn, 409: 'INVALID_STATE' }) },
      },
      handler: async (req) => written(await twoFactor.enable(actingOf(req), (await requireSession(req)).user, req.body.code), 'two-factor sign-in is on; keep the recovery codes somewhere safe'),
    }),

    totpDisable: defineRoute({
      permissions: 'public',
      sessionOnly: true,
      schema: {
        summary: 'Dashboard: turn two-factor sign-in off with the password (D24.6)',
        description: `Its secret and recovery codes are deleted. A wrong password: 400 INVALID_CREDENTIALS (it counts in the sign-in throttle). ${sessionOnly}`,
        tags,
        body: TotpDisableBody,
        response: { 200: Written(TwoFactorState), ...errorResponses(false, { 400: 'Invalid request (INVALID_REQUEST), or a wrong password (INVALID_CREDENTIALS)', ...notSignedIn }) },
      },
      handler: async (req, reply) => {
        const { user } = await requireSession(req);
        await throttledPasswordCheck(req, reply, user.email, () => twoFactor.disable(actingOf(req), user, req.body.password));
        return written({ two_factor: false }, 'two-factor sign-in is off');
      },
    }),

    totpSignIn: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: "Dashboard: sign in with the challenge and the authenticator's code, or a recovery code (D24.6)",
        description: `Give \`code\` or \`recovery_code\`, not both. Sets the httpOnly session cookie. A wrong or used code, a used recovery code, or a challenge that is unknown or older than ${TOTP_CHALLENGE_TTL_MS / 60_000} minutes: 401 INVALID_CREDENTIALS. Wrong codes count in the sign-in throttle (429 with Retry-After, as POST /api/v1/auth/login).`,
        tags,
        body: TotpSignInBody,
        response: { 200: Written(SessionInfo), ...errorResponses(false, { 401: 'INVALID_CREDENTIALS', ...crossSite }) },
      },
      handler: async (req, reply) => {
        refuseCrossSite(req);
        const { challenge, code, recovery_code } = req.body;
        if ((code === undefined) === (recovery_code === undefined)) throw new ApiError(400, 'INVALID_REQUEST', 'give code or recovery_code (one of them)');
        const email = await twoFactor.challengeEmail(challenge);
        const refused = () => invalidCredentials('the code is wrong or was used already, or the sign-in took too long: sign in again');
        if (email === null) throw refused();
        refuseIfWaiting(reply, await signInLimiter.beginSignIn(req.ip, email), 'failed sign-ins');
        const opened = await twoFactor.signIn(actingOf(req), challenge, code !== undefined ? { code } : { recovery_code: recovery_code! });
        if (!opened) {
          await signInLimiter.signInFailed(req.ip, email);
          throw refused();
        }
        await signInLimiter.signInSucceeded(req.ip, email);
        return written(startSession(reply, opened), 'signed in');
      },
    }),
  };
}
