import { actingOf } from '../acting.ts';
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import type { HttpParts } from '../http-parts.ts';
import { SSO_STATE_TTL_MS } from '../../domain/users/sso-state.ts';
import { SSO_ERRORS, type SsoError } from '../../domain/users/sso-errors.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { OidcCallbackQuery, SsoRedirect } from '../schemas/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import { setSessionCookie } from '../sign-in-parts.ts';

const tags = ['Dashboard sign-in'];

/** The sealed sign-in state (sso-state.ts); sent back only to the callback. */
export const SSO_STATE_COOKIE = 'sendwell_oidc';
const STATE_COOKIE_PATH = '/api/v1/auth/oidc';

const errorList = Object.entries(SSO_ERRORS).map(([code, message]) => `\`${code}\` (${message})`).join(', ');

/**
 * D24.7: single sign-on with OpenID Connect. Both routes are public and answer redirects, which a
 * browser follows: they are the dashboard's, not the API's. Without OIDC_ISSUER they are 404
 * NOT_FOUND, as a route that does not exist.
 */
export function ssoRoutes({ sso, config }: Pick<HttpParts, 'sso' | 'config'>) {
  const secure = config.publicUrl.startsWith('https://');
  // SameSite=Lax: the provider sends the browser back with a top-level GET, which Lax lets the cookie ride.
  const stateCookie = { httpOnly: true, sameSite: 'lax', path: STATE_COOKIE_PATH, secure } as const;

  function requireConfigured() {
    if (!sso.configured) throw new ApiError(404, 'NOT_FOUND', 'single sign-on is not configured on this instance (OIDC_ISSUER)');
  }

  function toLogin(reply: FastifyReply, error: SsoError) {
    return reply.header('Cache-Control', 'no-store').redirect(`${config.publicUrl}/login?error=${error}`, 302);
  }

  return {
    start: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: 'Dashboard: sign in with SSO (OpenID Connect): 302 to the provider',
        description: `D24.7: 302 to the provider's authorization endpoint (from its discovery document, fetched on first use) with the code flow, scope \`openid email\`, \`state\`, \`nonce\` and PKCE (S256). The three are kept in a sealed httpOnly cookie (SameSite=Lax, ${SSO_STATE_TTL_MS / 60_000} minutes) that only the callback reads. A provider that cannot be reached: 302 to \`/login?error=sso_unavailable\`.`,
        tags,
        response: { 302: SsoRedirect("The provider's authorization endpoint, or /login?error=sso_unavailable"), ...errorResponses(false, { 404: 'Single sign-on is not configured (NOT_FOUND)' }) },
      },
      handler: async (_req, reply) => {
        requireConfigured();
        const started = await sso.start();
        if (started.kind === 'refused') return toLogin(reply, started.error);
        reply.setCookie(SSO_STATE_COOKIE, started.sealedState, { ...stateCookie, maxAge: Math.floor(SSO_STATE_TTL_MS / 1000) });
        return reply.header('Cache-Control', 'no-store').redirect(started.url, 302);
      },
    }),

    callback: defineRoute({
      permissions: 'public',
      setsCookies: true,
      schema: {
        summary: "Dashboard: the provider's answer to a sign-in with SSO",
        description: `D24.7: trades the code at the token endpoint and checks the ID token (signature by the issuer's JWKS, \`iss\`, \`aud\`, \`exp\`, \`nonce\`) and \`email_verified\`, then signs in the user with that address (the session cookie, as sign-in does; no TOTP asked) or accepts that address's pending invitation, and redirects to the dashboard. Otherwise no session, and a 302 to \`/login?error=<code>\`: ${errorList}. The state cookie is single use: it is cleared either way.`,
        tags,
        querystring: OidcCallbackQuery,
        response: { 302: SsoRedirect('The dashboard (signed in), or /login?error=<code>'), ...errorResponses(false, { 404: 'Single sign-on is not configured (NOT_FOUND)' }) },
      },
      handler: async (req, reply) => {
        requireConfigured();
        // The cookie plugin parses no request here (hook: false, routes.ts): the header is read as session-auth.ts does.
        const sealed = req.headers.cookie ? fastifyCookie.parse(req.headers.cookie)[SSO_STATE_COOKIE] : undefined;
        reply.clearCookie(SSO_STATE_COOKIE, stateCookie);
        const query = new URLSearchParams(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
        const outcome = await sso.finish(actingOf(req), sealed, query);
        if (outcome.kind === 'refused') return toLogin(reply, outcome.error);
        setSessionCookie(reply, config.publicUrl, outcome.opened);
        return reply.header('Cache-Control', 'no-store').redirect(`${config.publicUrl}/`, 302);
      },
    }),
  };
}
