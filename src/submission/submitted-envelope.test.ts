import { describe, expect, it } from 'vitest';
import { envelopeFactsOf, HeaderBlockTooLarge } from './submitted-envelope.ts';

const source = (head: string) => Buffer.from(`${head}\r\n\r\n<p>body: with a colon</p>\r\n`);

describe('envelopeFactsOf (D25.7)', () => {
  it('reads From name and address, Reply-To and Subject, decoding encoded words and unfolding', async () => {
    const facts = await envelopeFactsOf(
      source('From: "Shop =?utf-8?q?B=C3=A4r?=" <shop@example.com>, other@example.com\r\nReply-To: Help <help@example.com>\r\nSubject: Re: =?utf-8?q?Your_receipt_A-42_=C3=A4?=\r\n  folded: part'),
    );
    expect(facts).toEqual({ fromEmail: 'shop@example.com', fromName: 'Shop Bär', replyTo: 'help@example.com', subject: 'Re: Your receipt A-42 ä folded: part' });
  });

  it('without a From or a Subject: null and empty (MAIL FROM is used then)', async () => {
    expect(await envelopeFactsOf(source('To: a@example.com'))).toEqual({ fromEmail: null, fromName: null, replyTo: null, subject: '' });
  });

  it('a From group or a name without an address gives no address', async () => {
    expect((await envelopeFactsOf(source('From: Undisclosed recipients:;'))).fromEmail).toBeNull();
  });

  it('refuses a header block over its limit without parsing it', async () => {
    await expect(envelopeFactsOf(Buffer.from(`Subject: ${'x'.repeat(300 * 1024)}\r\n\r\nbody`))).rejects.toBeInstanceOf(HeaderBlockTooLarge);
  });
});
