import ipaddr from 'ipaddr.js';

/**
 * D25.7's rules of the submission endpoint that need no connection: who may authenticate over a
 * plain connection, and where a submitted message's header block ends. Pure, unit-tested beside it.
 */

/** A submitted message's header block is read only this far: apps write a few KB of headers; a hostile one is not parsed without bound. */
export const HEADER_BLOCK_BYTES_MAX = 256 * 1024;

/** Whether a client's address is a loopback one (127.0.0.0/8, ::1, and IPv4 loopback written as IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/**
 * D25.7: AUTH without TLS is refused (538) except from loopback clients or with
 * SMTP_SUBMISSION_ALLOW_INSECURE=true. The reason to answer, or null when AUTH may go on.
 */
export function insecureAuthRefusal(session: { secure: boolean; remoteAddress: string | undefined }, allowInsecure: boolean, tlsOffered: boolean): string | null {
  if (session.secure || allowInsecure || isLoopback(session.remoteAddress)) return null;
  return tlsOffered
    ? '5.7.11 Encryption required: issue STARTTLS before AUTH'
    : '5.7.11 Encryption required: AUTH over a plain connection is accepted from loopback clients only, and this server offers no STARTTLS';
}

/**
 * The header block of a message source: the bytes before its first empty line (the whole source
 * when it has none), or null when that block is longer than HEADER_BLOCK_BYTES_MAX.
 */
export function headerBlock(source: Buffer): Buffer | null {
  const window = source.subarray(0, HEADER_BLOCK_BYTES_MAX + 4);
  const crlf = window.indexOf('\r\n\r\n');
  const lf = window.indexOf('\n\n');
  const ends = [crlf, lf].filter((i) => i >= 0);
  if (ends.length === 0) return source.length <= HEADER_BLOCK_BYTES_MAX ? source : null;
  const end = Math.min(...ends);
  return end <= HEADER_BLOCK_BYTES_MAX ? source.subarray(0, end) : null;
}
