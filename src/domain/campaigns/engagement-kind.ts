import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * D23: whether an open or a click came from a person or from a machine fetching on the
 * recipient's behalf: a mail privacy proxy (Apple Mail Privacy Protection prefetches every
 * message's images) or a link scanner (security gateways follow every link before delivery).
 * Pure: the tracking routes pass what they saw.
 */
export type EngagementKind = 'human' | 'machine';

export interface TrackingHit {
  action: 'open' | 'click';
  /** the HTTP method: a HEAD never comes from a person following a link */
  method: string;
  /** the client address, after TRUST_PROXY */
  ip: string;
  userAgent: string | undefined;
  /** when the message was handed to the mail server */
  sentAtMs: number | null;
  atMs: number;
}

/** D23: a click this soon after delivery is a scanner: no person reads and clicks that fast. */
export const HUMAN_CLICK_AFTER_MS = 2_000;

/** Apple's own networks (17.0.0.0/8 and its IPv6 allocations), where Mail Privacy Protection's proxies fetch from. */
const APPLE_NETWORKS = new BlockList();
APPLE_NETWORKS.addSubnet('17.0.0.0', 8, 'ipv4');
APPLE_NETWORKS.addSubnet('2620:149::', 32, 'ipv6');
APPLE_NETWORKS.addSubnet('2a01:b740::', 32, 'ipv6');

/**
 * User agents of link scanners, security gateways and HTTP libraries. Image proxies that fetch
 * when the person opens the message (Gmail's GoogleImageProxy, Outlook's) are people.
 */
const SCANNER_AGENT =
  /\b(?:barracuda|mimecast|proofpoint|messagelabs|symantec|trend ?micro|fireeye|ironport|forcepoint|sophos|zscaler|safelinks|bitdefender|kaspersky|spamtitan|hornetsecurity|avanan|checkpoint|bot|crawler|spider|scanner|python-requests|python-urllib|curl|wget|go-http-client|okhttp|headlesschrome|phantomjs|libwww-perl|apache-httpclient|axios|node-fetch|undici)\b/i;

/** Apple Mail Privacy Protection's fetcher names no browser or system: its user agent is exactly this. */
const APPLE_PROXY_AGENT = 'Mozilla/5.0';

/** The kind of a hit, and why, for logs and tests. */
export function classifyHit(hit: TrackingHit): { kind: EngagementKind; reason: string } {
  if (hit.method === 'HEAD') return { kind: 'machine', reason: 'a HEAD request' };
  const ip = hit.ip.startsWith('::ffff:') ? hit.ip.slice(7) : hit.ip;
  if ((isIPv4(ip) && APPLE_NETWORKS.check(ip, 'ipv4')) || (isIPv6(ip) && APPLE_NETWORKS.check(ip, 'ipv6'))) return { kind: 'machine', reason: "Apple's privacy proxy network" };
  const agent = hit.userAgent?.trim() ?? '';
  if (agent === '') return { kind: 'machine', reason: 'no user agent' };
  if (agent === APPLE_PROXY_AGENT) return { kind: 'machine', reason: "Apple's privacy proxy user agent" };
  if (SCANNER_AGENT.test(agent)) return { kind: 'machine', reason: 'a scanner or HTTP library user agent' };
  if (hit.action === 'click' && hit.sentAtMs !== null && hit.atMs - hit.sentAtMs < HUMAN_CLICK_AFTER_MS) return { kind: 'machine', reason: 'a click within 2 seconds of delivery' };
  return { kind: 'human', reason: 'a person' };
}
