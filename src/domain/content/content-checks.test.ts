import { describe, expect, it } from 'vitest';
import { brokenHref, campaignWarnings, contentWarnings, GMAIL_CLIP_BYTES, HREF_MAX_CHARS } from './content-checks.ts';

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

  it('each warning once over a campaign and its variants', () => {
    const broken = clean + '<a href="http//x.test">x</a>';
    expect(campaignWarnings([broken, broken, null], 't').map((w) => w.code)).toEqual(['BROKEN_LINK_SYNTAX']);
    expect(campaignWarnings([null], null)).toEqual([]);
  });

  it('text in style, script, head and comments, and Liquid tags, are not words; Liquid outputs are', () => {
    const img = '<img src="https://x.test/a.png" alt="a"> {{ unsubscribe_url }}';
    const words = (n: number) => 'word '.repeat(n);
    expect(codes(`<html><head><title>${words(30)}</title></head><body>${img}<style>${words(30)}</style><script>${words(30)}</script><!-- ${words(30)} -->{% if a %}{% endif %}</body></html>`)).toEqual(['IMAGE_ONLY']);
    expect(codes(`${img}<p>${'{{ first_name }} '.repeat(25)}</p>`)).toEqual([]);
    expect(codes(`${img}<p>${'&nbsp; '.repeat(25)}</p>`)).toEqual(['IMAGE_ONLY']);
    // A tag between two halves splits a word, as a reader sees it.
    expect(codes(`${img}<p>${'a<b>b</b> '.repeat(10)}</p>`)).toEqual([]);
    // Unclosed, a hiding element hides nothing (as before: the old patterns needed its close).
    expect(codes(`${img}<p>${words(25)}</p><style>`)).toEqual([]);
  });

  it('an img with alt and no value has no alt; the first href of a link counts; self-closed tags count', () => {
    expect(codes(`${clean}<img src="a.png" alt>`)).toEqual(['MISSING_ALT']);
    expect(codes(`${clean}<img src="a.png" alt="a"/><IMG SRC="b.png" ALT=''>`)).toEqual([]);
    expect(codes(`${clean}<a href="https://x.test/" href="http//x">x</a>`)).toEqual([]);
    expect(codes(`${clean}<A HREF=" ">x</A>`)).toEqual(['BROKEN_LINK_SYNTAX']);
    expect(codes(`${clean}<!-- <a href="http//x">x</a> --><script>"<a href='http//x'>"</script>`)).toEqual([]);
  });

  it(`an href over ${HREF_MAX_CHARS} characters is broken and not inspected further; Liquid in hrefs is read in one pass`, () => {
    expect(brokenHref('https://x.test/' + 'a'.repeat(HREF_MAX_CHARS))).toBe(`it is ${HREF_MAX_CHARS + 15} characters long, more than the ${HREF_MAX_CHARS} these checks read; shorten it`);
    expect(brokenHref('https://x.test/{{ a }}{% if b %}{{ c }}{% endif %}')).toBeNull();
    expect(brokenHref('}}{{')).toBeNull();
    expect(brokenHref('}}{{ x')).toBe('it holds spaces');
  });

  // Issue 28 C1: input built to make backtracking patterns take minutes is read in one pass. The
  // test's own time limit is the bound; each answer is checked in full.
  describe('C1: hostile HTML of a message part\'s size', () => {
    const size = 255 * 1024;
    const fill = (unit: string) => unit.repeat(Math.floor(size / unit.length));
    const big = ['HTML_OVER_102KB', 'NO_UNSUBSCRIBE_LINK'];

    it('thousands of <img without >, and of <a href= without >', () => {
      expect(codes(fill('<img '))).toEqual(big);
      expect(codes(fill('<img src=x alt'))).toEqual(big);
      expect(codes(fill('<a href='))).toEqual(big);
      expect(codes(fill('<a x '))).toEqual(big);
      expect(codes('<img src=a.png>' + fill('<a x '))).toEqual(['IMAGE_ONLY', 'MISSING_ALT', ...big]);
    });

    it('unclosed quotes and comments, and unclosed style, script and head', () => {
      expect(codes('<a href="' + fill('x '))).toEqual(big);
      expect(codes("<img alt='" + fill('<img '))).toEqual(big);
      expect(codes(fill('<!--'))).toEqual(big);
      expect(codes('<img src=a.png alt=a>' + fill('<style><script><head>'))).toEqual(['IMAGE_ONLY', ...big]);
    });

    it('deep nesting, and close tags of elements never opened', () => {
      expect(codes(fill('<div>'))).toEqual(big);
      expect(codes(fill('<div>').slice(0, size / 2) + fill('</span>').slice(0, size / 2))).toEqual(big);
    });

    it('many closed links, each malformed href warned about once it is distinct', () => {
      const html = fill('<a href="http//x">x</a>') + '{{ unsubscribe_url }}';
      expect(campaignWarnings([html], 't').map((w) => w.code)).toEqual(['HTML_OVER_102KB', 'BROKEN_LINK_SYNTAX']);
      expect(codes(`<a href="${fill('}}{{')}">x</a>`)).toEqual([...big, 'BROKEN_LINK_SYNTAX']);
    });
  });
});
