import type { ActingContext } from '../shared/actor.ts';
import * as oidc from 'openid-client';
import type { Logger } from 'pino';
import type { OidcConfig } from '../../config-oidc.ts';
import { emailKey } from '../shared/email-address.ts';
import type { SsoError } from './sso-errors.ts';
import { openPending, sealPending } from './sso-state.ts';
import type { OpenedSession } from './users.service.ts';


/**
 * D24.7's port to D24.3: accepts the address's pending invitation (the user is made with its role
 * and signed in, as accepting by link does) and opens its session; null when there is none.
 */
export type AcceptPendingInvitation = (acting: ActingContext, email: string) => Promise<OpenedSession | null>;

/** The part of UserService SSO signs in through. */
export interface VerifiedSignIn {
  signInWithVerifiedEmail(acting: ActingContext, email: string): Promise<OpenedSession | null>;
}

export type SsoStart = { kind: 'redirect'; url: string; sealedState: string } | { kind: 'refused'; error: SsoError };
export type SsoOutcome = { kind: 'signed-in'; opened: OpenedSession } | { kind: 'refused'; error: SsoError };

/** A discovery document is fetched again after this, so a provider's changed endpoints are seen. */
const DISCOVERY_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface SsoOptions {
  /** null: single sign-on is not configured */
  oidc: OidcConfig | null;
  /** SECRET: seals the sign-in state cookie */
  secret: string;
  /** `{PUBLIC_URL}/api/v1/auth/oidc/callback`, the redirect URI registered at the provider */
  callbackUrl: string;
  users: VerifiedSignIn;
  acceptPendingInvitation: AcceptPendingInvitation;
  logger: Logger;
}

/**
 * D24.7: single sign-on with OpenID Connect through `openid-client` (certified, on oauth4webapi):
 * the code flow with scope `openid email`, `state`, `nonce` and PKCE S256. The library checks the
 * ID token: its signature against the issuer's JWKS (non-repudiation checks on, as D24.7 asks it of
 * a token from the token endpoint too), `iss`, `aud`, `exp`, `iat` and `nonce`.
 */
export class SsoService {
  private discovered: { at: number; config: Promise<oidc.Configuration> } | null = null;

  constructor(private readonly options: SsoOptions) {}

  get configured(): boolean {
    return this.options.oidc !== null;
  }

  /**
   * The provider's configuration, fetched on first use and kept: a provider that is down stops
   * SSO sign-ins, never the service's start. A failed fetch is not kept, so the next try fetches again.
   */
  private configuration(settings: OidcConfig): Promise<oidc.Configuration> {
    const now = Date.now();
    if (this.discovered && now - this.discovered.at < DISCOVERY_MAX_AGE_MS) return this.discovered.config;
    const issuer = new URL(settings.issuer);
    const execute = [oidc.enableNonRepudiationChecks];
    // config-oidc.ts took http:// only on a loopback address.
    if (issuer.protocol === 'http:') execute.push(oidc.allowInsecureRequests);
    const config = oidc.discovery(issuer, settings.clientId, { redirect_uris: [this.options.callbackUrl] }, oidc.ClientSecretBasic(settings.clientSecret), { execute, timeout: 10 });
    const entry = { at: now, config };
    this.discovered = entry;
    config.catch((err: unknown) => {
      if (this.discovered === entry) this.discovered = null;
      this.options.logger.warn({ issuer: settings.issuer, reason: reasonOf(err) }, 'OIDC discovery failed');
    });
    return config;
  }

  private requireSettings(): OidcConfig {
    if (!this.options.oidc) throw new Error('single sign-on is not configured');
    return this.options.oidc;
  }

  /** Where to send the browser, and the sealed state the callback needs back (a cookie). */
  async start(): Promise<SsoStart> {
    const settings = this.requireSettings();
    let config: oidc.Configuration;
    try {
      config = await this.configuration(settings);
    } catch {
      return { kind: 'refused', error: 'sso_unavailable' };
    }
    const pending = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.options.callbackUrl,
      response_type: 'code',
      scope: 'openid email',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { kind: 'redirect', url: url.href, sealedState: sealPending(this.options.secret, pending) };
  }

  /**
   * The provider's answer: `callbackUrl` with its query. Trades the code, checks the ID token and
   * `email_verified`, then signs in the user with that address or accepts its pending invitation.
   */
  async finish(acting: ActingContext, sealedState: string | undefined, query: URLSearchParams): Promise<SsoOutcome> {
    const settings = this.requireSettings();
    const pending = openPending(this.options.secret, sealedState);
    if (!pending || query.get('state') !== pending.state) return refused('sso_state');
    let config: oidc.Configuration;
    try {
      config = await this.configuration(settings);
    } catch {
      return refused('sso_unavailable');
    }
    const currentUrl = new URL(this.options.callbackUrl);
    currentUrl.search = query.toString();
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (!idToken) return refused('sso_failed');
      // A provider that keeps scope claims out of the ID token (OpenID Connect Core 5.4, when an
      // access token is issued) answers them at its userinfo endpoint, for the same `sub` (checked).
      claims = idToken.email === undefined && config.serverMetadata().userinfo_endpoint ? await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub) : idToken;
    } catch (err) {
      // The reason names the failed check; never a token, code or secret.
      this.options.logger.warn({ reason: reasonOf(err) }, 'SSO sign-in refused');
      return refused('sso_failed');
    }
    const email = typeof claims.email === 'string' ? emailKey(claims.email) : '';
    // D24.7: only an address the provider has verified stands for its owner.
    if (email === '' || claims.email_verified !== true) return refused('sso_unverified');
    const opened = (await this.options.users.signInWithVerifiedEmail(acting, email)) ?? (await this.options.acceptPendingInvitation(acting, email));
    return opened ? { kind: 'signed-in', opened } : refused('sso_no_account');
  }
}

const refused = (error: SsoError): SsoOutcome => ({ kind: 'refused', error });

/** An error's code and message, for the log. */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return 'unknown error';
  const code = (err as { code?: unknown }).code;
  // The library's cause says which check failed (its message only: its other fields hold the token).
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return (typeof code === 'string' ? `${code}: ${err.message}` : err.message) + cause;
}
