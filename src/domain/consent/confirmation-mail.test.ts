import { describe, expect, it } from 'vitest';
import { holdsConfirmUrl } from '../lists/list.ts';
import { confirmationMail, defaultConfirmationSubject, listNames, ownWordsList } from './confirmation-mail.ts';

const URL = 'https://mail.example.test/c/abc.def';
const list = (name: string, subject: string | null = null, text: string | null = null, from: string | null = null) => ({ name, confirmation_subject: subject, confirmation_text: text, confirmation_from_email: from });

describe('D20 confirmation mail', () => {
  it('names the lists', () => {
    expect(listNames(['A'])).toBe('A');
    expect(listNames(['A', 'B'])).toBe('A and B');
    expect(listNames(['A', 'B', 'C'])).toBe('A, B and C');
  });

  it('by default: a subject naming the lists, a text naming the sender and the lists, the link in both parts', () => {
    const mail = confirmationMail('Acme', [list('News'), list('Offers')], URL);
    expect(mail.subject).toBe('Please confirm your subscription to News and Offers');
    expect(mail.text).toContain('from Acme (News and Offers)');
    expect(mail.text).toContain(URL);
    expect(mail.html).toContain(`href="https:&#x2F;&#x2F;mail.example.test&#x2F;c&#x2F;abc.def"`);
    expect(mail.text).not.toContain('{{');
    expect(mail.html).not.toContain('{{');
  });

  it('issue 30 item 10: plain words, and an HTML mail with the sender at the top and a confirm button that is the link', () => {
    const mail = confirmationMail('Acme & Co', [list('News')], URL);
    expect(mail.text.split('\n\n')[0]).toBe('Please confirm that you want e-mails from Acme & Co (News) at this address.');
    expect(mail.text).not.toMatch(/someone|we hope/i);
    expect(mail.html).toMatch(/^<!doctype html>/);
    expect(mail.html).toContain('>Acme &amp; Co</td>');
    expect(mail.html).toMatch(/<a href="https:&#x2F;&#x2F;mail\.example\.test&#x2F;c&#x2F;abc\.def" style="[^"]*">Confirm subscription<\/a>/);
    expect(mail.html).not.toMatch(/src=|url\(/);
  });

  it('a subject too long for many lists falls back to a short one', () => {
    const names = Array.from({ length: 30 }, (_, i) => `List number ${i}`);
    expect(defaultConfirmationSubject(names)).toBe('Please confirm your subscription');
  });

  it('issue 28 M2: own words without an address to send them from, or not handed over as checked, leave the fixed mail', () => {
    const lists = [list('Plain'), list('Scam', 'Security alert: your mailbox will be closed', 'Act now {{ confirm_url }}'), list('Also', 'Alert', 'x {{ confirm_url }}')];
    expect(ownWordsList(lists)).toBeUndefined();
    const mail = confirmationMail('Acme', lists, URL);
    expect(mail.subject).toBe('Please confirm your subscription to Plain, Scam and Also');
    expect(mail.text).not.toContain('Security alert');
    expect(confirmationMail('Acme', [list('Own', 'Join us', 'Hi {{ confirm_url }}', 'news@acme.test')], URL).subject).toBe('Please confirm your subscription to Own');
  });

  it("the first list with its own words and a sender gives them; every placeholder becomes the link; HTML is escaped", () => {
    const lists = [list('Plain'), list('Unsent', 'No sender', 'x {{ confirm_url }}'), list('Own', 'Join <us>', 'Hi & <b>bold</b>\n\n{{confirm_url}} or {{  confirm_url }}\nline two', 'news@acme.test'), list('Other', 'Not used', 'Not {{ confirm_url }}', 'news@acme.test')];
    expect(ownWordsList(lists)?.name).toBe('Own');
    const mail = confirmationMail('Acme', lists, URL, ownWordsList(lists));
    expect(mail.subject).toBe('Join <us>');
    expect(mail.text).toBe(`Hi & <b>bold</b>\n\n${URL} or ${URL}\nline two`);
    expect(mail.html).toMatch(/<p [^>]*>Hi &amp; &lt;b&gt;bold&lt;&#x2F;b&gt;<\/p>/);
    // Both placeholders, and the button.
    expect(mail.html.match(/<a href=/g)).toHaveLength(3);
    expect(mail.html).toContain('<br>line two');
  });

  it('a link with $ patterns is put in as it is', () => {
    const own = list('L', null, 'x {{ confirm_url }}', 'a@b.test');
    expect(confirmationMail('A', [own], 'https://h/c/$&$1', own).text).toBe('x https://h/c/$&$1');
  });

  it('knows whether a text holds the placeholder, however often asked (no regex state kept)', () => {
    for (let i = 0; i < 3; i++) {
      expect(holdsConfirmUrl('go {{ confirm_url }}')).toBe(true);
      expect(holdsConfirmUrl('go {{confirm_url}}')).toBe(true);
      expect(holdsConfirmUrl('go {{ confirm-url }}')).toBe(false);
    }
  });
});
