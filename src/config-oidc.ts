import ipaddr from 'ipaddr.js';
import { ConfigError } from './config-values.ts';

/** D24.7: the OpenID provider the dashboard's "Sign in with SSO" goes to. */
export interface OidcConfig {
  /** OIDC_ISSUER: its discovery document is `{issuer}/.well-known/openid-configuration` */
  issuer: string;
  /** OIDC_CLIENT_ID */
  clientId: string;
  /** OIDC_CLIENT_SECRET: sent to the token endpoint only, never logged */
  clientSecret: string;
}

const NAMES = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;

/** `localhost` or an address in 127.0.0.0/8 or ::1 (an IPv4-mapped one too). */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  const addr = ipaddr.process(host);
  return addr.range() === 'loopback';
}

/**
 * D24.7: the three settings are given together or not at all (else the start stops naming the
 * missing one). The issuer must be `https://`, except on a loopback address (development and
 * tests), where `http://` is taken. The discovery document is not fetched here: a provider that is
 * down must not stop the service from starting (the first sign-in fetches it).
 */
export function oidcFrom(env: NodeJS.ProcessEnv): OidcConfig | null {
  const values = NAMES.map((name) => env[name]?.trim() ?? '');
  const missing = NAMES.filter((_, i) => values[i] === '');
  if (missing.length === NAMES.length) return null;
  if (missing.length > 0) throw new ConfigError(`${missing.join(' and ')} must be set too: single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together (or none of them)`);
  const [issuer, clientId, clientSecret] = values;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`OIDC_ISSUER must be an https:// URL, got "${issuer}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`OIDC_ISSUER must be an https:// URL, got "${issuer}"`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(`OIDC_ISSUER must be an https:// URL; http:// is taken only on a loopback address (localhost, 127.0.0.1, ::1), got "${issuer}"`);
  }
  if (url.search || url.hash || url.username || url.password) throw new ConfigError(`OIDC_ISSUER must be the issuer's URL alone, without a query, fragment or credentials, got "${issuer}"`);
  return { issuer, clientId, clientSecret };
}
