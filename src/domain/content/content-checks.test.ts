import { describe, expect, it } from 'vitest';
import { brokenHref, contentWarnings, GMAIL_CLIP_BYTES } from './content-checks.ts';

const codes = (html: string | null, text: string | null = 'own text') => contentWarnings({ html, text }).map((w) => w.code);
const clean = '<p>Hello {{ first_name }}, here is a proper paragraph of news with quite enough words in it to read well without any image at all.</p><a href="https://example.com/a">Read</a> <a href="{{ unsubscribe_url }}">Unsubscribe</a>';

describe('content checks (D22)', () => {
  it('clean content has no warnings', () => {
    expect(codes(clean)).toEqual([]);
  });

  it('NO_TEXT_PART without a text of its own', () => {
    expect(codes(clean, null)).toEqual(['NO_TEXT_PART']);
    expect(codes(clean, '  ')).toEqual(['NO_TEXT_PART']);
  });

  it('IMAGE_ONLY and MISSING_ALT', () => {
    const html = '<img src="https://x.test/a.png"><img src="https://x.test/b.png" alt="b"> Sale {{ unsubscribe_url }}';
    expect(codes(html)).toEqual(['IMAGE_ONLY', 'MISSING_ALT']);
    expect(contentWarnings({ html, text: 't' })[1].message).toMatch(/^1 image has no alt/);
    expect(codes(clean + '<img src="https://x.test/a.png" alt="">')).toEqual([]);
  });

  it('HTML_OVER_102KB measures bytes', () => {
    expect(codes(clean + 'é'.repeat(GMAIL_CLIP_BYTES / 2))).toEqual(['HTML_OVER_102KB']);
    expect(codes(clean + 'a'.repeat(GMAIL_CLIP_BYTES - clean.length))).toEqual([]);
  });

  it('NO_UNSUBSCRIBE_LINK says the footer link is added', () => {
    const w = contentWarnings({ html: '<p>' + 'word '.repeat(30) + '</p>', text: 't' });
    expect(w.map((x) => x.code)).toEqual(['NO_UNSUBSCRIBE_LINK']);
    expect(w[0].message).toMatch(/added automatically/);
  });

  it('BROKEN_LINK_SYNTAX for each malformed href', () => {
    for (const href of ['', ' ', 'http//example.com', 'https:/example.com', 'http:///x', 'https://ex ample.com', 'javascript:alert(1)', 'https://x.test/{{ first_name', 'https://x.test/{% if a']) {
      expect(brokenHref(href), href).not.toBeNull();
    }
    for (const href of ['https://example.com/a?b=1', 'mailto:a@b.c', '{{ unsubscribe_url }}', 'https://x.test/{{ first_name | url_encode }}', '#top', '/relative']) {
      expect(brokenHref(href), href).toBeNull();
    }
    expect(codes(clean + `<a href='http//x.test'>x</a>`)).toEqual(['BROKEN_LINK_SYNTAX']);
    expect(codes(clean + '<a class="x" href>x</a>')).toEqual(['BROKEN_LINK_SYNTAX']);
    expect(codes(clean + '<a data-href="" href="https://x.test/">x</a>')).toEqual([]);
  });

  it('a text-only campaign has nothing to warn about in HTML', () => {
    expect(codes(null)).toEqual([]);
  });
});
