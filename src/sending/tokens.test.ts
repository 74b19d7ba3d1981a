import { describe, expect, it } from 'vitest';
import { TokenSigner } from './tokens.ts';

const signer = new TokenSigner('s3cret');

describe('tracking tokens (D16)', () => {
  it('round-trips each kind', () => {
    expect(signer.verify(signer.sign({ kind: 'open', recipientId: 42 }), 'open')).toEqual({ kind: 'open', recipientId: 42 });
    expect(signer.verify(signer.sign({ kind: 'click', recipientId: 42, link: 3 }), 'click')).toEqual({ kind: 'click', recipientId: 42, link: 3 });
    expect(signer.verify(signer.sign({ kind: 'unsubscribe', recipientId: 7 }), 'unsubscribe')).toEqual({ kind: 'unsubscribe', recipientId: 7 });
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
