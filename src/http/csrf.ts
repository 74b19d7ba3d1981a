import { sameSecret } from '../domain/users/session-token.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CsrfInput {
  method: string;
  /** the Origin header, if the browser sent one */
  origin: string | undefined;
  /** the Host header the request arrived with */
  host: string | undefined;
  /** PUBLIC_URL: the origin the dashboard is served from behind a proxy */
  publicUrl: string;
  /** the X-CSRF-Token header */
  token: string | string[] | undefined;
  /** the session's token */
  expected: string;
}

/** True when an Origin header names this server (as reached, or as PUBLIC_URL); absent is fine. */
export function isSameOrigin(origin: string | undefined, host: string | undefined, publicUrl: string): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.origin === new URL(publicUrl).origin || (host !== undefined && url.host === host);
}

/**
 * Why a request authenticated by the session cookie must be refused as cross-site, or null.
 * A page on another site can make the browser send the cookie, but it cannot read the session's
 * token to put in X-CSRF-Token, and the browser's Origin header names that other site.
 */
export function csrfProblem(input: CsrfInput): string | null {
  if (SAFE_METHODS.has(input.method)) return null;
  if (!isSameOrigin(input.origin, input.host, input.publicUrl)) return 'the request comes from another site (Origin)';
  if (typeof input.token !== 'string' || !sameSecret(input.token, input.expected)) {
    return 'X-CSRF-Token is missing or does not match this session (read it from GET /api/v1/auth/me)';
  }
  return null;
}
