import validator from 'validator';
import { ConfigError, intFrom, listenHostFrom } from './config-values.ts';

/** The settings of mail: the servers it goes through (D23), its sender, and the bounces that come back (D23). */

export interface BounceConfig {
  /** campaign messages' envelope sender is `bounce+<token>@` this (VERP); null: the From address, as before (BOUNCE_DOMAIN) */
  domain: string | null;
  /** the receiving SMTP server for DSNs and ARF reports; null: none (BOUNCE_SMTP_PORT, 0 = any free port; BOUNCE_SMTP_HOST, default 0.0.0.0) */
  smtp: { port: number; host: string } | null;
  /** a mailbox polled for bounces and complaints; null: none (BOUNCE_IMAP_URL, BOUNCE_IMAP_POLL_MS) */
  imap: BounceMailboxConfig | null;
  /** issue 28: how long a parse thread may read one received message before it is ended (BOUNCE_PARSE_MS) */
  parseMs: number;
}

/** BOUNCE_IMAP_URL `imap[s]://user:password@host[:port][/mailbox][?tls_reject_unauthorized=false]`, read apart so the password is never printed with the rest. */
export interface BounceMailboxConfig {
  secure: boolean;
  host: string;
  port: number;
  user: string;
  password: string;
  /** default INBOX */
  mailbox: string;
  /** a test or local server may present a self-signed certificate */
  rejectUnauthorized: boolean;
  /** the wait between looks at the mailbox when it had nothing new (BOUNCE_IMAP_POLL_MS, default 60000) */
  pollMs: number;
}

/** D23: where mail goes when there are mail servers. */
export interface SmtpServers {
  /** SMTP_URL, one or more URLs separated by spaces: every From domain not routed is spread over these */
  urls: string[];
  /** SMTP_ROUTES, `domain=url,...`: mail whose From domain (lowercase) is `domain` goes through `url` only, which takes no other mail */
  routes: { domain: string; url: string }[];
  /** consecutive transport failures after which a server is left out, when there are others to use (SMTP_SERVER_FAILURES) */
  failuresToLeaveOut: number;
  /** how long a server is left out before it is tried again (SMTP_SERVER_COOLDOWN_MS) */
  cooldownMs: number;
}

/** An SMTP URL as it may be shown in a log line or an error: any password replaced by `***`. */
export function smtpUrlForDisplay(raw: string): string {
  return raw.replace(/^([a-z]+:\/\/[^/@:]*):[^/@]*@/i, '$1:***@');
}

/** One SMTP URL of SMTP_URL or SMTP_ROUTES, normalised; a ConfigError naming the setting when it is not one. */
function smtpUrlFrom(setting: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${setting}: "${smtpUrlForDisplay(raw)}" is not a URL (smtp://host[:port] or smtps://...)`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError(`${setting}: "${smtpUrlForDisplay(raw)}" must start with smtp:// or smtps://`);
  if (!url.hostname) throw new ConfigError(`${setting}: "${smtpUrlForDisplay(raw)}" names no host`);
  return url.href;
}

/** A From domain as SMTP_ROUTES names it: a hostname (letters, digits, hyphens, dots), compared lowercase. */
const ROUTE_DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * SMTP_URL (URLs separated by spaces) and SMTP_ROUTES (`domain=url,...`), D23. Refused: a URL that
 * does not parse or is not smtp(s)://, the same server twice in SMTP_URL, a route without a domain
 * or a URL, a domain routed twice, a routed server also in SMTP_URL (routed servers take no other
 * mail), and routes without SMTP_URL (mail of other domains would have nowhere to go).
 */
export function smtpServersFrom(env: NodeJS.ProcessEnv): SmtpServers | null {
  const urls = (env.SMTP_URL ?? '').split(/\s+/).filter(Boolean).map((raw) => smtpUrlFrom('SMTP_URL', raw));
  const routes: SmtpServers['routes'] = [];
  for (const entry of (env.SMTP_ROUTES ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
    const eq = entry.indexOf('=');
    const domain = (eq < 0 ? entry : entry.slice(0, eq)).trim().toLowerCase();
    const rawUrl = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (!domain || !rawUrl) throw new ConfigError(`SMTP_ROUTES must be domain=smtp://host,... ; "${smtpUrlForDisplay(entry)}" has no ${domain ? 'URL' : 'domain'}`);
    if (!ROUTE_DOMAIN.test(domain)) throw new ConfigError(`SMTP_ROUTES: "${domain}" is not a domain name`);
    if (routes.some((r) => r.domain === domain)) throw new ConfigError(`SMTP_ROUTES names ${domain} twice`);
    routes.push({ domain, url: smtpUrlFrom('SMTP_ROUTES', rawUrl) });
  }
  const repeated = urls.find((url, i) => urls.indexOf(url) !== i);
  if (repeated) throw new ConfigError(`SMTP_URL names ${smtpUrlForDisplay(repeated)} twice`);
  const shared = routes.find((r) => urls.includes(r.url));
  if (shared) throw new ConfigError(`SMTP_ROUTES: ${smtpUrlForDisplay(shared.url)} is also in SMTP_URL, but a routed server takes no other mail`);
  if (urls.length === 0) {
    if (routes.length > 0) throw new ConfigError('SMTP_ROUTES needs SMTP_URL: mail of other From domains would have no server');
    return null;
  }
  return {
    urls,
    routes,
    failuresToLeaveOut: intFrom(env, 'SMTP_SERVER_FAILURES', 3, 1, 1000),
    cooldownMs: intFrom(env, 'SMTP_SERVER_COOLDOWN_MS', 30_000, 100, 3_600_000),
  };
}

/** MAIL_FROM: a bare address (a display name is not taken); unset, no-reply@ the host of PUBLIC_URL. */
export function mailFromOf(raw: string | undefined, publicUrl: string): string {
  const value = raw?.trim() || `no-reply@${new URL(publicUrl).hostname}`;
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(value)) throw new ConfigError(`MAIL_FROM must be a bare e-mail address, got "${value}"`);
  return value;
}

/**
 * D23. The receiver listens on all interfaces unless told otherwise: unlike the HTTP API, which
 * sits behind a proxy, it is the MX host other mail servers connect to. It needs BOUNCE_DOMAIN,
 * the domain whose addresses it accepts.
 */
export function bouncesFrom(env: NodeJS.ProcessEnv): BounceConfig {
  const rawDomain = env.BOUNCE_DOMAIN?.trim().toLowerCase() || null;
  if (rawDomain !== null && !validator.isFQDN(rawDomain, { require_tld: true })) throw new ConfigError(`BOUNCE_DOMAIN must be a domain name such as bounces.example.com, got "${rawDomain}"`);
  const port = env.BOUNCE_SMTP_PORT === undefined || env.BOUNCE_SMTP_PORT === '' ? null : intFrom(env, 'BOUNCE_SMTP_PORT', 0, 0, 65535);
  if (port !== null && rawDomain === null) throw new ConfigError('BOUNCE_SMTP_PORT needs BOUNCE_DOMAIN, the domain of the bounce addresses it receives for');
  return {
    domain: rawDomain,
    smtp: port === null ? null : { port, host: listenHostFrom(env, 'BOUNCE_SMTP_HOST', '0.0.0.0') },
    imap: bounceMailboxFrom(env),
    parseMs: intFrom(env, 'BOUNCE_PARSE_MS', 5000, 100, 60_000),
  };
}

/** BOUNCE_IMAP_URL; errors never repeat the URL, which holds a password. */
function bounceMailboxFrom(env: NodeJS.ProcessEnv): BounceMailboxConfig | null {
  const raw = env.BOUNCE_IMAP_URL?.trim();
  if (!raw) return null;
  const shape = 'BOUNCE_IMAP_URL must look like imap://user:password@host:143/INBOX or imaps://user:password@host/INBOX';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${shape} (it does not parse as a URL)`);
  }
  if (url.protocol !== 'imap:' && url.protocol !== 'imaps:') throw new ConfigError(`${shape} (the scheme is ${url.protocol.slice(0, 10)})`);
  if (!url.hostname || !url.username) throw new ConfigError(`${shape} (a host and a user are required)`);
  const secure = url.protocol === 'imaps:';
  const mailbox = decodeURIComponent(url.pathname.replace(/^\/+/, '')) || 'INBOX';
  return {
    secure,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 993 : 143,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    mailbox,
    rejectUnauthorized: url.searchParams.get('tls_reject_unauthorized') !== 'false',
    pollMs: intFrom(env, 'BOUNCE_IMAP_POLL_MS', 60_000, 100, 86_400_000),
  };
}

/** Messages per second per recipient domain (D23's SEND_DOMAIN_RATES), by lower-cased domain. */
export type DomainRates = ReadonlyMap<string, number>;

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * D23: `gmail.com=20,outlook.com=10`, each a recipient domain and its cap in messages per second
 * (a whole number from 1). Empty or unset: no caps. Throws with what is wrong, in one line.
 */
export function parseDomainRates(raw: string | undefined): DomainRates {
  const rates = new Map<string, number>();
  const value = raw?.trim() ?? '';
  if (value === '') return rates;
  for (const entry of value.split(',').map((e) => e.trim())) {
    const match = /^([^=\s]+)\s*=\s*([0-9]+)$/.exec(entry);
    if (!match) throw new Error(`"${entry}" is not domain=messages per second (e.g. gmail.com=20)`);
    const domain = match[1].toLowerCase();
    const rate = Number(match[2]);
    if (!HOSTNAME.test(domain)) throw new Error(`"${match[1]}" is not a domain name`);
    if (!Number.isSafeInteger(rate) || rate < 1 || rate > 1_000_000) throw new Error(`the rate for ${domain} must be a whole number from 1 to 1000000, got ${match[2]}`);
    if (rates.has(domain)) throw new Error(`${domain} is given twice`);
    rates.set(domain, rate);
  }
  return rates;
}
