import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** The person the provider signs in next: its `sub`, address and whether it verified it. */
export interface ProviderAccount {
  sub: string;
  email: string;
  email_verified: boolean;
}

/** What the proxy does to the token endpoint's ID token: new claims, and the key to sign them with. */
export type IdTokenTamper = (claims: Record<string, unknown>, keys: { provider: KeyObject; other: KeyObject }) => { claims: Record<string, unknown>; key: KeyObject };

export interface OpenIdProvider {
  /** the issuer, the proxy's address: what OIDC_ISSUER names */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** who the next sign-in at the provider is */
  account: ProviderAccount;
  /** when set, the proxy re-signs each ID token the token endpoint answers (D24.7's checks) */
  tamper: IdTokenTamper | null;
  close(): Promise<void>;
}

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
const closeServer = (server: Server) => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });

function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** An RS256 JWS, as the provider makes them, with `kid` naming the provider's key whatever key signs it. */
function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64url(header)}.${b64url(claims)}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
}

/**
 * A real, certified OpenID provider (`oidc-provider`) on a loopback port, behind a small proxy
 * whose address is the issuer. The proxy passes everything through; with `tamper` set it re-signs
 * the token endpoint's ID token, so the service's checks of `aud`, `exp`, `nonce` and the
 * signature meet a token that a real provider's flow delivered. The login and consent steps finish
 * programmatically (no pages), for `account`, so a test drives the flow with plain HTTP requests.
 */
export async function startOpenIdProvider(redirectUri: string, opts: { emailInIdToken?: boolean } = {}): Promise<OpenIdProvider> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const kid = 'test-key';
  const proxy = createServer();
  const proxyPort = await listen(proxy);
  const issuer = `http://127.0.0.1:${proxyPort}`;
  const state: OpenIdProvider = {
    issuer,
    clientId: 'sendwell-test',
    clientSecret: 'a-client-secret-of-the-test',
    account: { sub: 'person-1', email: 'person@example.com', email_verified: true },
    tamper: null,
    close: async () => undefined,
  };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: state.clientId,
        client_secret: state.clientSecret,
        redirect_uris: [redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['oidc-test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // By default the address travels in the ID token, as Google's and Keycloak's do; with
    // emailInIdToken false only the userinfo endpoint answers it (OpenID Connect Core 5.4).
    conformIdTokenClaims: opts.emailInIdToken === false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    findAccount: async (_ctx: unknown, sub: string) =>
      sub === state.account.sub ? { accountId: sub, claims: async () => ({ sub, email: state.account.email, email_verified: state.account.email_verified }) } : undefined,
  });
  const handle = provider.callback();

  /** Login and consent at once, for `state.account`. */
  async function finishInteraction(req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: state.account.sub, clientId: details.params.client_id });
    grant.addOIDCScope('openid email');
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: state.account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  const upstream = createServer((req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      finishInteraction(req, res).catch((err: Error) => {
        res.statusCode = 500;
        res.end(err.message);
      });
      return;
    }
    handle(req, res);
  });
  const upstreamPort = await listen(upstream);

  proxy.on('request', (req, res) => {
    const forward = request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const tamper = state.tamper;
      if (!tamper || !req.url?.startsWith('/token') || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const [header, payload] = String(body.id_token).split('.');
        const changed = tamper(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), { provider: privateKey, other });
        body.id_token = signJwt(JSON.parse(Buffer.from(header, 'base64url').toString('utf8')), changed.claims, changed.key);
        const text = JSON.stringify(body);
        const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) };
        delete headers['transfer-encoding'];
        res.writeHead(200, headers);
        res.end(text);
      });
    });
    forward.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(forward);
  });

  state.close = async () => {
    await closeServer(proxy);
    await closeServer(upstream);
  };
  return state;
}
