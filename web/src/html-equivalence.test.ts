/** Issue 33: when two compilations are the same message (the visual editor's "no silent rewrite"). */
import { describe, expect, it } from 'vitest';
import { canonicalHtml, firstDifference, sameHtml } from './html-equivalence.ts';

describe('the same message apart from spelling (issue 33)', () => {
  it('ignores the order of attributes and the whitespace between tags and inside attribute values', () => {
    const before = '<table role="presentation" border="0">\n  <tr>\n    <td style="color:red;  padding:0" align="left">\n      <p>Hello   world</p>\n    </td>\n  </tr>\n</table>';
    const after = '<table border="0" role="presentation"><tr><td align="left" style="color:red; padding:0"><p>Hello world</p></td></tr></table>';
    expect(sameHtml(before, after)).toBe(true);
    expect(firstDifference(before, after)).toBeNull();
    expect(canonicalHtml(before)).toBe(canonicalHtml(after));
  });

  it('ignores whitespace at the edges of a block and after a line break, which a browser does not draw', () => {
    expect(sameHtml('<div>\n  The Monthly Letter\n</div>', '<div>The Monthly Letter</div>')).toBe(true);
    expect(sameHtml('<div>Springfield<br>\n<a href="#">Preferences</a></div>', '<div>Springfield<br><a href="#">Preferences</a></div>')).toBe(true);
  });

  it('reads an entity and its character as the same text', () => {
    expect(sameHtml('<p>Tom &amp; Jerry&nbsp;!</p>', '<p>Tom &#38; Jerry\u00a0!</p>')).toBe(true);
  });

  it('sees a changed text, attribute value, attribute or element as a difference', () => {
    const base = '<div class="x"><a href="https://a.example/">Shop now</a></div>';
    expect(sameHtml(base, '<div class="x"><a href="https://a.example/">Shop later</a></div>')).toBe(false);
    expect(sameHtml(base, '<div class="x"><a href="https://b.example/">Shop now</a></div>')).toBe(false);
    expect(sameHtml(base, '<div class="x"><a href="https://a.example/" target="_blank">Shop now</a></div>')).toBe(false);
    expect(sameHtml(base, '<div class="x"><span href="https://a.example/">Shop now</span></div>')).toBe(false);
    expect(sameHtml(base, '<div class="x"><a href="https://a.example/">Shop now</a><br></div>')).toBe(false);
  });

  it('sees a space lost or gained between words and an inline element, which changes what is drawn', () => {
    expect(sameHtml('<p>Hello <b>world</b></p>', '<p>Hello<b>world</b></p>')).toBe(false);
    expect(sameHtml('<p><a href="#">Preferences</a> · <a href="#">Unsubscribe</a></p>', '<p><a href="#">Preferences</a>·<a href="#">Unsubscribe</a></p>')).toBe(false);
    expect(sameHtml('<p><b>Bold</b> <i>italic</i></p>', '<p><b>Bold</b><i>italic</i></p>')).toBe(false);
    // one space or many is the same
    expect(sameHtml('<p>Hello <b>world</b></p>', '<p>Hello \n  <b>world</b></p>')).toBe(true);
  });

  it('tells text that looks like markup from markup', () => {
    expect(sameHtml('<p>&lt;b&gt;x&lt;/b&gt;</p>', '<p><b>x</b></p>')).toBe(false);
    expect(sameHtml('<p title="a&quot; b=&quot;c">x</p>', '<p title="a" b="c">x</p>')).toBe(false);
  });

  it('names where two messages first differ, with what stands around it on each side', () => {
    const where = firstDifference('<p>Hello</p><p>The button says Buy</p>', '<p>Hello</p><p>The button says Sell</p>', 12);
    expect(where).toMatch(/^at \d+: /);
    expect(where).toContain('before «');
    expect(where).toContain('says Buy');
    expect(where).toContain('after «');
    expect(where).toContain('says Sell');
    const at = Number(/^at (\d+)/.exec(where!)![1]);
    expect(canonicalHtml('<p>Hello</p><p>The button says Buy</p>').slice(at)).toMatch(/^Buy/);
  });
});
