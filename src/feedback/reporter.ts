import { isIPv4, isIPv6 } from 'node:net';
import { emailDomain } from '../domain/shared/email-address.ts';

/**
 * Issue 28: who reported a complaint, for the campaign stop (rate-stop.ts counts complaints per
 * distinct reporter). Every field of an RFC 5965 report (Reporting-MTA, Source-IP,
 * Reported-Domain, User-Agent) is written by whoever sends it, so none names the reporter: one
 * sender could write a different one in each. What it cannot choose freely is where it connects
 * from, so a report received over SMTP is the connecting network's: an IPv4 /24 or an IPv6 /64
 * (one host usually holds a whole /64). A mailbox's copy has no connection of ours behind it: its
 * reporter is the domain of its envelope sender (the Return-Path the mailbox's own server wrote,
 * else From).
 */
export function reporterOfConnection(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1] : address;
  if (isIPv4(ip)) return `ip:${ip.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(ip)) return `ip:${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
  return `ip:${address}`;
}

/** The reporter of a mailbox's copy: its envelope sender's domain; one shared name when it has none. */
export function reporterOfMailbox(sender: string | null): string {
  const domain = sender === null ? '' : emailDomain(sender);
  return `domain:${domain || 'unknown'}`;
}

/** The eight hextets of an IPv6 address, without leading zeros. */
function expandIPv6(ip: string): string[] {
  const [head, tail = ''] = ip.toLowerCase().split('%')[0].split('::');
  const left = head === '' ? [] : head.split(':');
  const right = ip.includes('::') && tail !== '' ? tail.split(':') : [];
  const hextets = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return hextets.map((h) => (h.includes('.') ? h : h.replace(/^0+(?=.)/, '')));
}
