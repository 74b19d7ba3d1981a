import { describe, expect, it } from 'vitest';
import { TokenSigner } from './tokens.ts';

const signer = new TokenSigner('s3cret');

describe('tracking tokens (D16)', () => {
  it('round-trips each kind', () => {
    expect(signer.verify(signer.sign({ kind: 'open', recipientId: 42 }), 'open')).toEqual({ kind: 'open', recipientId: 42 });
    expect(signer.verify(signer.sign({ kind: 'click', recipientId: 42, link: 3 }), 'click')).toEqual({ kind: 'click', recipientId: 42, link: 3 });
    expect(signer.verify(signer.sign({ kind: 'unsubscribe', recipientId: 7 }), 'unsubscribe')).toEqual({ kind: 'unsubscribe', recipientId: 7 });
    expect(signer.verify(signer.sign({ kind: 'preferences', recipientId: 7 }), 'preferences')).toEqual({ kind: 'preferences', recipientId: 7 });
    expect(signer.verify(signer.sign({ kind: 'test-preferences', testSendId: 7 }), 'test-preferences')).toEqual({ kind: 'test-preferences', testSendId: 7 });
  });

  it("D20: a preference centre token is no unsubscribe token, nor the reverse, nor a test send's", () => {
    const preferences = signer.sign({ kind: 'preferences', recipientId: 7 });
    expect(signer.verify(preferences, 'unsubscribe')).toBeNull();
    expect(signer.verify(preferences, 'test-preferences')).toBeNull();
    expect(signer.verify(signer.sign({ kind: 'unsubscribe', recipientId: 7 }), 'preferences')).toBeNull();
    expect(signer.verify(signer.sign({ kind: 'test-preferences', testSendId: 7 }), 'preferences')).toBeNull();
  });

  it('test kinds name a test send; a test token of before issue 14 (naming the campaign) verifies as nothing (L4)', () => {
    expect(signer.verify(signer.sign({ kind: 'test-click', testSendId: 9, link: 2 }), 'test-click')).toEqual({ kind: 'test-click', testSendId: 9, link: 2 });
    expect(signer.verify(signer.sign({ kind: 'test-open', testSendId: 9 }), 'test-open')).toEqual({ kind: 'test-open', testSendId: 9 });
    expect(signer.verify(signer.sign({ kind: 'test-unsubscribe', testSendId: 9 }), 'test-unsubscribe')).toEqual({ kind: 'test-unsubscribe', testSendId: 9 });
    // The old format, `tc:<campaignId>:<link>`, correctly signed.
    const oldBody = Buffer.from('tc:9:2').toString('base64url');
    const oldToken = `${oldBody}.${(signer as unknown as { signature(b: string): string }).signature(oldBody)}`;
    expect(signer.verify(oldToken, 'test-click')).toBeNull();
    expect(signer.verify(signer.sign({ kind: 'test-click', testSendId: 9, link: 2 }), 'click')).toBeNull();
  });

  it('D20: a confirm token names a contact, and is no other kind (an unsubscribe token of the same id does not confirm)', () => {
    const token = signer.sign({ kind: 'confirm', contactId: 12 });
    expect(signer.verify(token, 'confirm')).toEqual({ kind: 'confirm', contactId: 12 });
    expect(signer.verify(token, 'unsubscribe')).toBeNull();
    expect(signer.verify(signer.sign({ kind: 'unsubscribe', recipientId: 12 }), 'confirm')).toBeNull();
    expect(signer.verify(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), 'confirm')).toBeNull();
  });

  it('refuses a token of another kind, another secret, or with any character changed', () => {
    const token = signer.sign({ kind: 'click', recipientId: 42, link: 3 });
    expect(signer.verify(token, 'open')).toBeNull();
    expect(new TokenSigner('other').verify(token, 'click')).toBeNull();
    for (let i = 0; i < token.length; i++) {
      const c = token[i] === 'A' ? 'B' : 'A';
      const tampered = token.slice(0, i) + c + token.slice(i + 1);
      if (tampered !== token) expect(signer.verify(tampered, 'click')).toBeNull();
    }
    expect(signer.verify('', 'click')).toBeNull();
    expect(signer.verify('nodot', 'click')).toBeNull();
  });

  it('refuses a payload re-signed under a forged body', () => {
    const token = signer.sign({ kind: 'open', recipientId: 1 });
    const forgedBody = Buffer.from('o:2').toString('base64url');
    expect(signer.verify(`${forgedBody}.${token.split('.')[1]}`, 'open')).toBeNull();
  });
});

describe('bounce tokens (D23: the VERP Return-Path)', () => {
  it('round-trips, in lower case only, and stays well inside a local part', () => {
    for (const recipientId of [0, 1, 42, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const token = signer.signBounce({ kind: 'bounce', recipientId });
      expect(token).toMatch(/^[0-9a-z]+-[a-z2-7]{16}$/);
      expect(`bounce+${token}`.length).toBeLessThan(64);
      expect(signer.verifyBounce(token)).toEqual({ kind: 'bounce', recipientId });
    }
  });

  it('survives a mail system folding the local part to upper case', () => {
    const token = signer.signBounce({ kind: 'bounce', recipientId: 1234 });
    expect(signer.verifyBounce(token.toUpperCase())).toEqual({ kind: 'bounce', recipientId: 1234 });
  });

  it('refuses another secret, another row, any changed character, and link tokens', () => {
    const token = signer.signBounce({ kind: 'bounce', recipientId: 77 });
    expect(new TokenSigner('other').verifyBounce(token)).toBeNull();
    const [, signature] = token.split('-');
    expect(signer.verifyBounce(`${(78).toString(36)}-${signature}`)).toBeNull();
    for (let i = 0; i < token.length; i++) {
      const c = token[i] === 'a' ? 'b' : 'a';
      expect(signer.verifyBounce(token.slice(0, i) + c + token.slice(i + 1))).toBeNull();
    }
    expect(signer.verifyBounce(signer.sign({ kind: 'unsubscribe', recipientId: 77 }))).toBeNull();
    expect(signer.verifyBounce('')).toBeNull();
  });

  it('names a transactional message apart (issue 31): its own prefix and signature, never taken for a recipient row', () => {
    for (const messageId of [0, 1, 42, Number.MAX_SAFE_INTEGER]) {
      const token = signer.signBounce({ kind: 'message-bounce', messageId });
      expect(token).toMatch(/^t-[0-9a-z]+-[a-z2-7]{16}$/);
      expect(`bounce+${token}`.length).toBeLessThan(64);
      expect(signer.verifyBounce(token)).toEqual({ kind: 'message-bounce', messageId });
      expect(signer.verifyBounce(token.toUpperCase())).toEqual({ kind: 'message-bounce', messageId });
    }
    const recipient = signer.signBounce({ kind: 'bounce', recipientId: 77 });
    const message = signer.signBounce({ kind: 'message-bounce', messageId: 77 });
    // The same id with the other kind's signature verifies as nothing.
    expect(signer.verifyBounce(`t-${recipient}`)).toBeNull();
    expect(signer.verifyBounce(message.slice(2))).toBeNull();
  });
});
