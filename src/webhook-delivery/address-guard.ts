import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An address a delivery resolved to, checked: the one the connection is then pinned to. */
export interface VettedAddress {
  address: string;
  family: 4 | 6;
}

/** The destination may not be reached (a private address, say): the delivery fails for good, with this reason. */
export class RefusedDestination extends Error {}

/** The cloud metadata services, named in the refusal so an operator sees what was attempted. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

/**
 * Why an address may not receive webhooks, or null if it may. Only ordinary public unicast is
 * allowed: loopback, private (RFC 1918), unique-local, link-local, CGNAT, unspecified, multicast,
 * broadcast, reserved and documentation ranges, and the IPv6 forms that embed an IPv4 address
 * (mapped, 6to4, Teredo, NAT64) are all refused, so nothing inside the operator's network is
 * reachable through an endpoint URL.
 */
export function refusalReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns ::ffff:10.0.0.1 into 10.0.0.1, so a mapped address is judged as the IPv4 it is.
    parsed = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
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
      if (reason) throw new RefusedDestination(`refused: ${host} resolves to ${reason} (set WEBHOOKS_ALLOW_PRIVATE=true to allow private destinations)`);
    }
  }
  const first = addresses[0];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
