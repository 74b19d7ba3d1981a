import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ownPublicUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { sendwellProcess } from '../helpers/cli.ts';
import { SsoService } from '../../src/domain/users/sso.service.ts';
import type { OpenedSession } from '../../src/domain/users/users.service.ts';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/config-values.ts';
import { startOpenIdProvider, type OpenIdProvider } from './openid-provider.ts';
import { SYSTEM_ACTING } from '../../src/domain/shared/actor.ts';

const CALLBACK = '/api/v1/auth/oidc/callback';

/** A browser's part that matters here: its cookies per origin, and redirects followed by hand. */
class Browser {
  readonly jar = new Map<string, Map<string, string>>();

  cookiesOf(origin: string): Map<string, string> {
    if (!this.jar.has(origin)) this.jar.set(origin, new Map());
    return this.jar.get(origin)!;
  }

  async get(url: URL | string): Promise<Response> {
    const target = new URL(url);
    const cookies = [...this.cookiesOf(target.origin)].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(target, { redirect: 'manual', headers: cookies ? { cookie: cookies } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const gone = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]) < Date.now()));
      if (gone) this.cookiesOf(target.origin).delete(name);
      else this.cookiesOf(target.origin).set(name, value);
    }
    return res;
  }
}

interface Flow {
  /** where the service sent the browser in the end: the dashboard or /login?error= */
  final: URL;
  /** the first answer: /oidc/start's redirect */
  start: Response;
  /** what the callback answered */
  callback: Response | null;
}

/**
 * Runs a whole sign-in with SSO as a browser would: /oidc/start, the provider (its login and
 * consent finish by themselves), back to the callback. `atCallback` may change the callback's URL
 * or the browser before the callback is asked.
 */
async function signInWithSso(server: TestServer, browser: Browser, atCallback?: (url: URL, browser: Browser) => URL | void): Promise<Flow> {
  const serverOrigin = new URL(server.url).origin;
  const start = await browser.get(`${server.url}/api/v1/auth/oidc/start`);
  expect(start.status, await start.clone().text()).toBe(302);
  let location = new URL(start.headers.get('location')!, server.url);
  let callback: Response | null = null;
  for (let hops = 0; hops < 20; hops++) {
    if (location.origin === serverOrigin && !location.pathname.startsWith('/api/')) return { final: location, start, callback };
    if (location.origin === serverOrigin && location.pathname === CALLBACK && atCallback) location = atCallback(location, browser) ?? location;
    const res = await browser.get(location);
    if (location.pathname === CALLBACK) callback = res;
    expect([302, 303], `${location.href}: ${res.status} ${await res.clone().text()}`).toContain(res.status);
    location = new URL(res.headers.get('location')!, location);
  }
  throw new Error('too many redirects');
}

const sessionOf = (server: TestServer, browser: Browser) => browser.cookiesOf(new URL(server.url).origin).get('sendwell_session');

async function me(server: TestServer, browser: Browser) {
  const token = sessionOf(server, browser);
  return server.request('GET', '/api/v1/auth/me', { headers: token ? { cookie: `sendwell_session=${token}` } : {} });
}

function oidcEnv(provider: OpenIdProvider): Record<string, string> {
  return { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret };
}

describe('D24.7 single sign-on with OpenID Connect', () => {
  let provider: OpenIdProvider;
  let server: TestServer;
  let accountId: number;

  beforeAll(async () => {
    const own = await ownPublicUrl();
    provider = await startOpenIdProvider(`${own.PUBLIC_URL}${CALLBACK}`);
    server = await startTestServer({ ...own, ...oidcEnv(provider) });
    accountId = (await server.createAccount()).id;
    await server.core.users.create(SYSTEM_ACTING, accountId, { email: 'member@example.com', password: 'a long password' });
  });

  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  afterEach(() => {
    provider.tamper = null;
    provider.account = { sub: 'person-1', email: 'member@example.com', email_verified: true };
  });

  it('D24.7: the sign-in status says SSO is configured', async () => {
    const res = await server.request('GET', '/api/v1/auth/signup');
    expect(res.status).toBe(200);
    expect(res.body.data.sso).toBe(true);
  });

  it("D24.7: /oidc/start sends the browser to the provider's authorization endpoint: code flow, scope openid email, state, nonce, PKCE S256, in a sealed httpOnly SameSite=Lax cookie", async () => {
    const res = await fetch(`${server.url}/api/v1/auth/oidc/start`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(`${provider.issuer}/auth`);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({ response_type: 'code', scope: 'openid email', client_id: provider.clientId, redirect_uri: `${server.url}${CALLBACK}`, code_challenge_method: 'S256' });
    for (const p of ['state', 'nonce', 'code_challenge']) expect(to.searchParams.get(p), p).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sendwell_oidc='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/api\/v1\/auth\/oidc/);
    // Opaque: neither the state nor the nonce can be read from it.
    expect(cookie).not.toContain(to.searchParams.get('state'));
    expect(cookie).not.toContain(to.searchParams.get('nonce'));
  });

  it('D24.7: a verified address of a user signs in without password or TOTP: the session cookie works on /auth/me, last_sign_in_at is set and auth.signed_in names the user', async () => {
    const browser = new Browser();
    const flow = await signInWithSso(server, browser);
    expect(flow.final.href).toBe(`${server.url}/`);
    const cookie = flow.callback!.headers.getSetCookie().find((c) => c.startsWith('sendwell_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/(;|$)/);
    // The state cookie is single use.
    expect(browser.cookiesOf(new URL(server.url).origin).has('sendwell_oidc')).toBe(false);
    const res = await me(server, browser);
    expect(res.status).toBe(200);
    expect(res.body.data.user.email).toBe('member@example.com');
    const user = await server.db.selectFrom('users').selectAll().where('email', '=', 'member@example.com').executeTakeFirstOrThrow();
    expect(user.last_sign_in_at).not.toBeNull();
    const entries = await server.db.selectFrom('audit_log').selectAll().where('action', '=', 'auth.signed_in').where('actor_id', '=', String(user.id)).execute();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ account_id: accountId, actor_type: 'user', actor_label: 'member@example.com', target_type: 'user', target_id: String(user.id) });
  });

  it('D24.7: the address is matched whatever its letter case at the provider', async () => {
    provider.account = { sub: 'person-2', email: 'Member@Example.COM', email_verified: true };
    const browser = new Browser();
    expect((await signInWithSso(server, browser)).final.href).toBe(`${server.url}/`);
    expect((await me(server, browser)).body.data.user.email).toBe('member@example.com');
  });

  it('D24.7: an address that is no user and has no invitation: no session, /login?error=sso_no_account', async () => {
    provider.account = { sub: 'stranger', email: 'stranger@example.com', email_verified: true };
    const browser = new Browser();
    const flow = await signInWithSso(server, browser);
    expect(flow.final.href).toBe(`${server.url}/login?error=sso_no_account`);
    expect(sessionOf(server, browser)).toBeUndefined();
    expect((await me(server, browser)).status).toBe(401);
  });

  it("D24.7 with D24.3: a verified address with a pending invitation joins through it: signed in with the invitation's role, the invitation ended; a revoked one lets nobody in", async () => {
    const { key } = await server.createKey(accountId, ['*']);
    const invited = await server.request('POST', '/api/v1/invitations', { key, body: { email: 'invited-by-sso@example.com', role: 'author' } });
    expect(invited.status, invited.text).toBe(200);
    provider.account = { sub: 'invitee', email: 'invited-by-sso@example.com', email_verified: true };
    const browser = new Browser();
    expect((await signInWithSso(server, browser)).final.href).toBe(`${server.url}/`);
    const res = await me(server, browser);
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ email: 'invited-by-sso@example.com', role: 'author', account_id: accountId });
    const pending = await server.request('GET', '/api/v1/invitations', { key });
    expect(pending.body.data.invitations.map((i: { email: string }) => i.email)).not.toContain('invited-by-sso@example.com');
    const joined = await server.db.selectFrom('audit_log').select(['action', 'actor_label']).where('account_id', '=', accountId).where('action', '=', 'member.joined').execute();
    expect(joined).toContainEqual({ action: 'member.joined', actor_label: 'invited-by-sso@example.com' });

    const revoked = await server.request('POST', '/api/v1/invitations', { key, body: { email: 'revoked-sso@example.com', role: 'viewer' } });
    expect((await server.request('DELETE', `/api/v1/invitations/${revoked.body.data.id}`, { key })).status).toBe(200);
    provider.account = { sub: 'revoked', email: 'revoked-sso@example.com', email_verified: true };
    const other = new Browser();
    expect((await signInWithSso(server, other)).final.href).toBe(`${server.url}/login?error=sso_no_account`);
    expect((await me(server, other)).status).toBe(401);
  });

  it('D24.7: an address the provider has not verified (email_verified false) is refused: /login?error=sso_unverified', async () => {
    provider.account = { sub: 'person-3', email: 'member@example.com', email_verified: false };
    const browser = new Browser();
    const flow = await signInWithSso(server, browser);
    expect(flow.final.href).toBe(`${server.url}/login?error=sso_unverified`);
    expect(sessionOf(server, browser)).toBeUndefined();
  });

  it('D24.7: a state that does not match the one sent is refused: /login?error=sso_state, and no code is traded', async () => {
    const browser = new Browser();
    const flow = await signInWithSso(server, browser, (url) => {
      url.searchParams.set('state', 'not-the-state-we-sent');
      return url;
    });
    expect(flow.final.href).toBe(`${server.url}/login?error=sso_state`);
    expect(sessionOf(server, browser)).toBeUndefined();
  });

  it('D24.7: a callback without the state cookie (another browser, or it expired) is refused: /login?error=sso_state', async () => {
    const browser = new Browser();
    const flow = await signInWithSso(server, browser, (_url, b) => void b.cookiesOf(new URL(server.url).origin).delete('sendwell_oidc'));
    expect(flow.final.href).toBe(`${server.url}/login?error=sso_state`);
    expect(sessionOf(server, browser)).toBeUndefined();
  });

  it('D24.7: a state cookie altered by hand is refused: /login?error=sso_state', async () => {
    const browser = new Browser();
    const flow = await signInWithSso(server, browser, (_url, b) => {
      const jar = b.cookiesOf(new URL(server.url).origin);
      const sealed = jar.get('sendwell_oidc')!;
      jar.set('sendwell_oidc', sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA'));
    });
    expect(flow.final.href).toBe(`${server.url}/login?error=sso_state`);
  });

  it('D24.7: the proxy that alters ID tokens below changes nothing by itself: the same claims re-signed with the provider key sign in', async () => {
    provider.tamper = (claims, keys) => ({ claims, key: keys.provider });
    const browser = new Browser();
    expect((await signInWithSso(server, browser)).final.href).toBe(`${server.url}/`);
    expect((await me(server, browser)).status).toBe(200);
  });

  const refusedTokens: [string, OpenIdProvider['tamper']][] = [
    ['a nonce other than the one sent', (claims, keys) => ({ claims: { ...claims, nonce: 'another-nonce' }, key: keys.provider })],
    ["an audience (aud) of another client", (claims, keys) => ({ claims: { ...claims, aud: 'another-client', azp: 'another-client' }, key: keys.provider })],
    ['an expired ID token (exp an hour ago)', (claims, keys) => ({ claims: { ...claims, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }, key: keys.provider })],
    ["a signature by a key that is not the issuer's (same kid)", (claims, keys) => ({ claims, key: keys.other })],
    ['another issuer (iss)', (claims, keys) => ({ claims: { ...claims, iss: 'http://127.0.0.1:1' }, key: keys.provider })],
  ];
  it.each(refusedTokens)('D24.7: an ID token with %s is refused: no session, /login?error=sso_failed', async (_name, tamper) => {
    provider.tamper = tamper;
    const browser = new Browser();
    const flow = await signInWithSso(server, browser);
    expect(flow.final.href).toBe(`${server.url}/login?error=sso_failed`);
    expect(sessionOf(server, browser)).toBeUndefined();
    expect((await me(server, browser)).status).toBe(401);
  });

  it('D24.7: a provider that refuses (error=access_denied) sends the browser to /login?error=sso_failed', async () => {
    const browser = new Browser();
    const flow = await signInWithSso(server, browser, (url) => {
      const denied = new URL(url.origin + url.pathname);
      denied.searchParams.set('error', 'access_denied');
      denied.searchParams.set('state', url.searchParams.get('state')!);
      denied.searchParams.set('iss', url.searchParams.get('iss') ?? provider.issuer);
      return denied;
    });
    expect(flow.final.href).toBe(`${server.url}/login?error=sso_failed`);
  });

  it("D24.7: an address's pending invitation is accepted when it is no user (through the invitations' port)", async () => {
    // The invitations of D24.3 are wired by the integrator; here the port is a fake store.
    const invited = new Map([['invitee@example.com', 'member@example.com']]);
    const asked: string[] = [];
    /** Follows the provider's redirects from its authorization URL to the callback's query. */
    async function providerAnswer(browser: Browser, url: string): Promise<URLSearchParams> {
      let location = new URL(url);
      for (let hops = 0; hops < 20 && !location.href.startsWith(`${server.url}${CALLBACK}`); hops++) {
        const res = await browser.get(location);
        expect([302, 303], `${location.href}: ${res.status}`).toContain(res.status);
        location = new URL(res.headers.get('location')!, location);
      }
      return location.searchParams;
    }
    const sso = new SsoService({
      oidc: server.core.config.oidc,
      secret: server.core.config.secret,
      callbackUrl: `${server.url}${CALLBACK}`,
      users: server.core.users,
      logger: pino({ level: 'silent' }),
      acceptPendingInvitation: async (acting, email): Promise<OpenedSession | null> => {
        asked.push(email);
        const as = invited.get(email);
        // The fake "accepts" by opening a session of an existing user, which the real one would have made.
        return as ? server.core.users.signInWithVerifiedEmail(acting, as) : null;
      },
    });
    provider.account = { sub: 'invitee', email: 'invitee@example.com', email_verified: true };
    const started = await sso.start();
    if (started.kind !== 'redirect') throw new Error(`start refused: ${started.error}`);
    const outcome = await sso.finish(SYSTEM_ACTING, started.sealedState, await providerAnswer(new Browser(), started.url));
    expect(asked).toEqual(['invitee@example.com']);
    expect(outcome.kind).toBe('signed-in');
    // Not asked for an address that is a user.
    provider.account = { sub: 'person-1', email: 'member@example.com', email_verified: true };
    const again = await sso.start();
    if (again.kind !== 'redirect') throw new Error('start refused');
    expect((await sso.finish(SYSTEM_ACTING, again.sealedState, await providerAnswer(new Browser(), again.url))).kind).toBe('signed-in');
    expect(asked).toEqual(['invitee@example.com']);
  });
});

describe('D24.7 single sign-on with a provider that gives the address at its userinfo endpoint only', () => {
  let provider: OpenIdProvider;
  let server: TestServer;

  beforeAll(async () => {
    const own = await ownPublicUrl();
    provider = await startOpenIdProvider(`${own.PUBLIC_URL}${CALLBACK}`, { emailInIdToken: false });
    server = await startTestServer({ ...own, ...oidcEnv(provider) });
    await server.core.users.create(SYSTEM_ACTING, (await server.createAccount()).id, { email: 'member@example.com', password: 'a long password' });
  });

  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  it('D24.7: the ID token carries no address; the userinfo answer for its sub signs the user in', async () => {
    provider.tamper = (claims, keys) => {
      // Proves the premise: this provider's ID token has no address.
      expect(claims.email).toBeUndefined();
      return { claims, key: keys.provider };
    };
    provider.account = { sub: 'person-1', email: 'member@example.com', email_verified: true };
    const browser = new Browser();
    expect((await signInWithSso(server, browser)).final.href).toBe(`${server.url}/`);
    expect((await me(server, browser)).body.data.user.email).toBe('member@example.com');
  });

  it('D24.7: an address the userinfo answer does not call verified is refused: /login?error=sso_unverified', async () => {
    provider.tamper = null;
    provider.account = { sub: 'person-2', email: 'member@example.com', email_verified: false };
    const browser = new Browser();
    expect((await signInWithSso(server, browser)).final.href).toBe(`${server.url}/login?error=sso_unverified`);
    expect(sessionOf(server, browser)).toBeUndefined();
  });
});

describe('D24.7 single sign-on: settings', () => {
  it('D24.7: without OIDC_ISSUER the routes are 404 NOT_FOUND and the sign-in status says sso: false', async () => {
    const server = await startTestServer();
    try {
      expect((await server.request('GET', '/api/v1/auth/signup')).body.data.sso).toBe(false);
      for (const path of ['/api/v1/auth/oidc/start', `${CALLBACK}?code=x&state=y`]) {
        const res = await server.request('GET', path);
        expect(res.status, path).toBe(404);
        expect(res.body.error.code, path).toBe('NOT_FOUND');
      }
    } finally {
      await server.close();
    }
  });

  it('D24.7: a provider that is down stops no start; /oidc/start then sends the browser to /login?error=sso_unavailable', async () => {
    // A port that was free a moment ago: nothing answers there.
    const { PUBLIC_URL: nowhere } = await ownPublicUrl();
    const server = await startTestServer({ OIDC_ISSUER: nowhere, OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' });
    try {
      const res = await fetch(`${server.url}/api/v1/auth/oidc/start`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(/\/login\?error=sso_unavailable$/);
    } finally {
      await server.close();
    }
  });

  it('D24.7: an http:// issuer that is not a loopback address stops the start, naming OIDC_ISSUER', async () => {
    const { PORT } = await ownPublicUrl();
    const res = await sendwellProcess(['serve'], { DATA_DIR: '/nonexistent-never-written', SECRET: 'x', PORT, OIDC_ISSUER: 'http://idp.example.com', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 'the-client-secret' });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('OIDC_ISSUER must be an https:// URL');
    // Secrets never reach the output.
    expect(res.stderr + res.stdout).not.toContain('the-client-secret');
  }, 60_000);

  it('D24.7: the three settings come together: one missing stops the start naming it; https:// and loopback http:// are taken', () => {
    const base = { SECRET: 'x', DATA_DIR: '/nonexistent-never-written' };
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'c' })).toThrow(/OIDC_CLIENT_SECRET must be set/);
    expect(() => loadConfig({ ...base, OIDC_CLIENT_SECRET: 's' })).toThrow(/OIDC_ISSUER and OIDC_CLIENT_ID must be set/);
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'http://10.0.0.5', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' })).toThrow(ConfigError);
    for (const issuer of ['https://idp.example.com/realms/x', 'http://127.0.0.1:8080', 'http://localhost:8080/realms/dev', 'http://[::1]:9000']) {
      expect(loadConfig({ ...base, OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }).oidc, issuer).toEqual({ issuer, clientId: 'c', clientSecret: 's' });
    }
    expect(loadConfig(base).oidc).toBeNull();
  });
});
