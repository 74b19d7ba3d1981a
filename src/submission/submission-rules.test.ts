import { describe, expect, it } from 'vitest';
import { HEADER_BLOCK_BYTES_MAX, headerBlock, insecureAuthRefusal, isLoopback } from './submission-rules.ts';

describe('D25.7 SMTP submission rules', () => {
  it('loopback clients: 127.0.0.0/8, ::1 and IPv4-mapped loopback; nothing else', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a), a).toBe(true);
    for (const a of ['192.0.2.2', '10.0.0.1', '::ffff:192.0.2.2', 'fe80::1', '', undefined, 'localhost']) expect(isLoopback(a), String(a)).toBe(false);
  });

  it('AUTH without TLS: refused (538) from a non-loopback client, allowed over TLS, from loopback, or with ALLOW_INSECURE', () => {
    const remote = { secure: false, remoteAddress: '192.0.2.2' };
    expect(insecureAuthRefusal(remote, false, true)).toMatch(/^5\.7\.11 .*STARTTLS/);
    expect(insecureAuthRefusal(remote, false, false)).toMatch(/^5\.7\.11 .*loopback/);
    expect(insecureAuthRefusal({ ...remote, secure: true }, false, true)).toBeNull();
    expect(insecureAuthRefusal({ secure: false, remoteAddress: '::ffff:127.0.0.1' }, false, true)).toBeNull();
    expect(insecureAuthRefusal(remote, true, false)).toBeNull();
  });

  it('the header block ends at the first empty line (CRLF or LF); a block over the bound is null', () => {
    expect(headerBlock(Buffer.from('Subject: a\r\nFrom: b@c.d\r\n\r\nbody\r\n\r\nmore'))?.toString()).toBe('Subject: a\r\nFrom: b@c.d');
    expect(headerBlock(Buffer.from('Subject: a\n\nbody'))?.toString()).toBe('Subject: a');
    expect(headerBlock(Buffer.from('Subject: only headers\r\n'))?.toString()).toBe('Subject: only headers\r\n');
    const long = `X-Long: ${'a'.repeat(HEADER_BLOCK_BYTES_MAX)}`;
    expect(headerBlock(Buffer.from(`${long}\r\n\r\nbody`))).toBeNull();
    expect(headerBlock(Buffer.from(long))).toBeNull();
  });
});
