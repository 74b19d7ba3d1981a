import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What a tracking or unsubscribe link stands for. `link` is an index into a stored link list: the
 * campaign's (campaigns.links) or the test send's (test_sends.links).
 * The `test-` kinds are in test sends (D13 `/test`): they name the test send, not a recipient, so
 * their links work (a click goes to a link the test message held) but count nowhere, and they
 * expire with the test send's row (issue 14 L4).
 * `preferences` is D20's preference centre (`/p/{token}`): it names the recipient row, whose
 * contact the page shows and changes, as the unsubscribe link does.
 * `webview` is D22's web view (`/w/{token}`): it names the recipient row whose message the page
 * shows again, as that recipient got it.
 * `webview-preferences` is the preference link of that web view page (issue 28 L1): the same
 * preference centre, but without D21's export and erase. A web view's address is shared (a
 * forwarded mail, a link posted somewhere) and never expires, so what its page links to must not
 * hand anyone the person's data or its erasure; those stay behind the mailed message's own link.
 * `confirm` is D20's double opt-in link (`/c/{token}`): it names a contact, whose UNCONFIRMED
 * memberships a POST confirms; it is in no campaign, so there is no recipient row to name.
 */
export type TokenPayload =
  | { kind: 'open'; recipientId: number }
  | { kind: 'click'; recipientId: number; link: number }
  | { kind: 'unsubscribe'; recipientId: number }
  | { kind: 'trap'; recipientId: number }
  | { kind: 'preferences'; recipientId: number }
  | { kind: 'webview'; recipientId: number }
  | { kind: 'webview-preferences'; recipientId: number }
  | { kind: 'test-webview'; testSendId: number }
  | { kind: 'test-open'; testSendId: number }
  | { kind: 'test-click'; testSendId: number; link: number }
  | { kind: 'test-unsubscribe'; testSendId: number }
  | { kind: 'test-trap'; testSendId: number }
  | { kind: 'test-preferences'; testSendId: number }
  | { kind: 'confirm'; contactId: number }
  | { kind: 'message-open'; messageId: number }
  | { kind: 'message-click'; messageId: number; link: number }
  | { kind: 'message-trap'; messageId: number };

/**
 * D23: what a VERP Return-Path names, `bounce+<token>@BOUNCE_DOMAIN`: a campaign recipient row, or
 * (issue 31) a transactional message, whose token starts `t-`.
 * It lives in an address's local part, which mail systems may fold to lower case and which must
 * stay under 64 characters, so it is written in lower case only: the row id in base 36, `-`, and
 * 80 bits of signature in base 32 (about 30 characters in all).
 */
export type BouncePayload = { kind: 'bounce'; recipientId: number } | { kind: 'message-bounce'; messageId: number };

// The test kinds' codes changed when they began to name a test send (issue 14 L4): a test token of
// before, which named the campaign, verifies as nothing rather than as some test send's id.
const KIND_CODE = { open: 'o', click: 'c', unsubscribe: 'u', trap: 't', 'test-open': 'tso', 'test-click': 'tsc', 'test-unsubscribe': 'tsu', 'test-trap': 'tst', confirm: 'cf', preferences: 'p', 'test-preferences': 'tsp', webview: 'w', 'webview-preferences': 'wp', 'test-webview': 'tsw', 'message-open': 'mo', 'message-click': 'mc', 'message-trap': 'mt' } as const;
const SIGNATURE_BYTES = 16;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** The row a kind of token names. */
const idField = (kind: TokenPayload['kind']) => (kind === 'confirm' ? 'contactId' : kind.startsWith('test-') ? 'testSendId' : kind.startsWith('message-') ? 'messageId' : 'recipientId');

/**
 * D16: links in mails carry an HMAC-signed token, so they cannot be forged or altered.
 * The token is `<payload>.<signature>`, both base64url; the payload names a recipient or test
 * send row, never a URL, so a click can only lead to a link the message itself contained.
 */
export class TokenSigner {
  constructor(private readonly secret: string) {}

  sign(payload: TokenPayload): string {
    const parts: (string | number)[] = [KIND_CODE[payload.kind], (payload as unknown as Record<string, number>)[idField(payload.kind)]];
    if ('link' in payload) parts.push(payload.link);
    const body = Buffer.from(parts.join(':')).toString('base64url');
    return `${body}.${this.signature(body)}`;
  }

  /** The payload if the token is intact and of the expected kind, else null. */
  verify<K extends TokenPayload['kind']>(token: string, kind: K): Extract<TokenPayload, { kind: K }> | null {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 200) return null;
    const body = token.slice(0, dot);
    // Compared as text, not decoded bytes: base64url decoding ignores the last character's spare bits, so a changed character could still match.
    const given = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.signature(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const parts = Buffer.from(body, 'base64url').toString().split(':');
    if (parts[0] !== KIND_CODE[kind]) return null;
    const numbers = parts.slice(1).map(Number);
    if (!numbers.every((n) => Number.isSafeInteger(n) && n >= 0)) return null;
    const id = idField(kind);
    if (kind === 'click' || kind === 'test-click' || kind === 'message-click') return numbers.length === 2 ? ({ kind, [id]: numbers[0], link: numbers[1] } as never) : null;
    return numbers.length === 1 ? ({ kind, [id]: numbers[0] } as never) : null;
  }

  /** D23: the token of a VERP Return-Path (BouncePayload), as its local part carries it after `bounce+`. */
  signBounce(payload: BouncePayload): string {
    if (payload.kind === 'message-bounce') {
      const id = payload.messageId.toString(36);
      return `t-${id}-${this.bounceSignature(`t:${id}`)}`;
    }
    const id = payload.recipientId.toString(36);
    return `${id}-${this.bounceSignature(id)}`;
  }

  /** The payload if the bounce token is intact, in any letter case, else null. A message's token is signed apart (`t:`), so neither kind verifies as the other. */
  verifyBounce(token: string): BouncePayload | null {
    const m = /^(t-)?([0-9a-z]{1,11})-([a-z2-7]{16})$/.exec(token.toLowerCase());
    if (!m) return null;
    const message = m[1] !== undefined;
    const given = Buffer.from(m[3]);
    const expected = Buffer.from(this.bounceSignature(message ? `t:${m[2]}` : m[2]));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const id = parseInt(m[2], 36);
    if (!Number.isSafeInteger(id)) return null;
    return message ? { kind: 'message-bounce', messageId: id } : { kind: 'bounce', recipientId: id };
  }

  /** Message-ID local part: fixed per (campaign, recipient), and checkable when a bounce names it. */
  messageIdSignature(campaignId: number, recipientId: number): string {
    return this.signature(`m:${campaignId}:${recipientId}`).slice(0, 10);
  }

  /** D25: a transactional message's Message-ID local part, checkable when a bounce names it. */
  transactionalIdSignature(messageId: number): string {
    return this.signature(`t:${messageId}`).slice(0, 10);
  }

  /** 10 bytes of HMAC in lower-case base 32 (RFC 4648 alphabet): 16 characters, kept apart from the link tokens by its `b:` prefix. */
  private bounceSignature(id: string): string {
    const bytes = createHmac('sha256', this.secret).update(`b:${id}`).digest().subarray(0, 10);
    let bits = 0;
    let value = 0;
    let out = '';
    for (const byte of bytes) {
      value = ((value << 8) | byte) & 0xfff;
      bits += 8;
      while (bits >= 5) {
        out += BASE32[(value >>> (bits - 5)) & 31];
        bits -= 5;
      }
    }
    return out;
  }

  private signature(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, SIGNATURE_BYTES).toString('base64url');
  }
}
