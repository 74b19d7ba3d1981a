import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An address a delivery resolved to, checked: the one the connection is then pinned to. */
export interface VettedAddress {
  address: string;
  family: 4 | 6;
}

/** All a tenant is told about a refused destination (issue 14 L8): never what a name resolved to. */
export const DESTINATION_NOT_ALLOWED = 'destination not allowed';

/**
 * The destination may not be reached (a private address, say): the delivery fails for good. Its
 * message is the generic text the tenant sees in the delivery log; `detail` says what the host
 * resolved to and why that was refused, for the server log only (issue 14 L8: the refusal told
 * tenants what internal names resolve to).
 */
export class RefusedDestination extends Error {
  constructor(readonly detail: string) {
    super(DESTINATION_NOT_ALLOWED);
  }
}

/** The cloud metadata services, named in the refusal so an operator sees what was attempted. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

/** IPv6 global unicast (RFC 4291): everything else, ::/8 with its IPv4-compatible ::a.b.c.d included, is not the public Internet. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Why an address may not receive webhooks, or null if it may. Only global unicast is allowed
 * (issue 14 L8): an IPv4 address whose ipaddr.js range is 'unicast' (not loopback, private,
 * link-local, CGNAT, unspecified, multicast, broadcast, reserved or documentation), or an IPv6
 * address in 2000::/3 whose range is 'unicast', which leaves out the forms that embed an IPv4
 * address: IPv4-compatible (::a.b.c.d, which ipaddr.js calls unicast), NAT64 (64:ff9b::/96),
 * 6to4 (2002::/16) and Teredo (2001::/32). An IPv4-mapped address (::ffff:a.b.c.d) reaches its
 * IPv4 address, so it is judged as that address.
 */
export function refusalReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // ipaddr.js reads any trailing dotted quad as IPv4-mapped (::127.0.0.1 as ::ffff:7f00:1); the
    // WHATWG URL parser writes an IPv6 address in hex as it is (::7f00:1), as the delivery's URL has it.
    parsed = ipaddr.parse(address.includes(':') ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address);
  } catch {
    return `${address} is not an IP address`;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (!v6.match(GLOBAL_UNICAST_V6)) return `${v6.toString()} is not an IPv6 global unicast address (2000::/3)`;
  }
  const normal = parsed.toString();
  if (METADATA.has(normal)) return `${normal} is a cloud metadata address`;
  const range = parsed.range();
  if (range === 'unicast') return null;
  return `${normal} is ${/^[aeiou]/.test(range) ? 'an' : 'a'} ${range} address`;
}

/**
 * Resolves the host of an endpoint URL at delivery time and checks every address it has: one
 * bad address refuses the delivery (a DNS answer mixing a public and a private address must not
 * let the connection land on the private one). Returns the address to connect to.
 */
export async function vetDestination(hostname: string, allowPrivate: boolean): Promise<VettedAddress> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const reason = refusalReason(address);
      if (reason) throw new RefusedDestination(`${isIP(host) ? '' : `${host} resolves to `}${reason} (WEBHOOKS_ALLOW_PRIVATE=true allows private destinations)`);
    }
  }
  const first = addresses[0];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** How long saving an endpoint waits for its host's DNS answer; past it the check is left to delivery. */
const SAVE_LOOKUP_BUDGET_MS = 3000;

/**
 * D26.8: an endpoint that no delivery could reach is refused when it is saved rather than failing
 * every delivery later with "destination not allowed". The URL's host, or every address its name
 * resolves to now, must be public. As at delivery (issue 14 L8), the tenant is not told what a name
 * resolved to; only that it is not public, and which setting allows private destinations. A name
 * that does not resolve yet, or not within the budget, is saved: delivery checks it again each time,
 * which also catches a name that changes its answer later.
 */
export async function unreachableReason(url: string, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<'no answer'>((resolve) => {
    timer = setTimeout(() => resolve('no answer'), SAVE_LOOKUP_BUDGET_MS);
  });
  try {
    await Promise.race([vetDestination(new URL(url).hostname, false), budget]);
    return null;
  } catch (err) {
    if (!(err instanceof RefusedDestination)) return null;
    return 'url names or resolves to a loopback, private or otherwise non-public address, where webhooks are not delivered; an operator may allow such destinations for local development with WEBHOOKS_ALLOW_PRIVATE=true';
  } finally {
    clearTimeout(timer);
  }
}
