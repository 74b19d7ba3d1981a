/**
 * Issue 33's "no silent rewrite": two compilations are the same message when they differ only in
 * whitespace a browser does not draw and in the order of attributes. Read with htmlparser2 (never
 * regexes over HTML) and written back canonically: attributes sorted, text and attribute values
 * escaped (so text that looks like markup is not markup), runs of whitespace as one space, none
 * between tags unless it separates words from an inline element ("Hello <b>world</b>" is not
 * "Hello<b>world</b>" on screen).
 */
import { Parser } from 'htmlparser2';

/** Elements drawn in the line of text: a space beside them is drawn too. */
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'button', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'img', 'input', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var']);

/** HTML's whitespace: a no-break space (U+00A0) is text, not whitespace. */
const WHITESPACE = /[ \t\n\f\r]+/g;

type Token = { text: string } | { tag: string; name: string } | { other: string };

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

export function canonicalHtml(html: string): string {
  const tokens: Token[] = [];
  const space = (text: string) => text.replace(WHITESPACE, ' ');
  const parser = new Parser(
    {
      onopentag: (name, attributes) => {
        const attrs = Object.keys(attributes)
          .sort()
          .map((key) => ` ${key}="${escapeAttribute(space(attributes[key]!).trim())}"`)
          .join('');
        tokens.push({ tag: `<${name}${attrs}>`, name });
      },
      onclosetag: (name, implied) => {
        if (!implied) tokens.push({ tag: `</${name}>`, name });
      },
      // The parser may hand one text over in pieces (at each entity): they are one text.
      ontext: (text) => {
        const last = tokens[tokens.length - 1];
        if (last && 'text' in last) last.text += text;
        else tokens.push({ text });
      },
      oncomment: (text) => tokens.push({ other: `<!--${space(text).trim()}-->` }),
      onprocessinginstruction: (_name, data) => tokens.push({ other: `<${space(data)}>` }),
    },
    { decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.end(html);

  /** Whether a space beside this token is drawn: beside words or an inline element, it is. */
  const inLine = (token: Token | undefined) => !!token && ('text' in token ? token.text.trim() !== '' : 'name' in token && INLINE.has(token.name));
  return tokens
    .map((token, i) => {
      if (!('text' in token)) return 'tag' in token ? token.tag : token.other;
      let text = space(token.text);
      if (text.startsWith(' ') && !inLine(tokens[i - 1])) text = text.slice(1);
      if (text.endsWith(' ') && !inLine(tokens[i + 1])) text = text.slice(0, -1);
      return escapeText(text);
    })
    .join('');
}

/** True when both compile to the same message (see canonicalHtml). */
export function sameHtml(a: string, b: string): boolean {
  return canonicalHtml(a) === canonicalHtml(b);
}

/** Where two canonical forms first differ, with some context: for a notice or a failing test. */
export function firstDifference(a: string, b: string, context = 80): string | null {
  const x = canonicalHtml(a);
  const y = canonicalHtml(b);
  if (x === y) return null;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  return `at ${i}: before «${x.slice(Math.max(0, i - context), i + context)}» after «${y.slice(Math.max(0, i - context), i + context)}»`;
}
