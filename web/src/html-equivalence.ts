/**
 * Issue 33's "no silent rewrite": two compilations are the same message when they differ only in
 * whitespace and in the order of attributes. Read with htmlparser2 (never regexes over HTML) and
 * written back canonically: attributes sorted, runs of whitespace as one space, none between tags.
 */
import { Parser } from 'htmlparser2';

export function canonicalHtml(html: string): string {
  const out: string[] = [];
  const space = (text: string) => text.replace(/\s+/g, ' ');
  const parser = new Parser(
    {
      onopentag: (name, attributes) => {
        const attrs = Object.keys(attributes)
          .sort()
          .map((key) => ` ${key}="${space(attributes[key]!).trim()}"`)
          .join('');
        out.push(`<${name}${attrs}>`);
      },
      onclosetag: (name, implied) => {
        if (!implied) out.push(`</${name}>`);
      },
      ontext: (text) => {
        const collapsed = space(text);
        if (collapsed.trim()) out.push(collapsed);
      },
      oncomment: (text) => out.push(`<!--${space(text).trim()}-->`),
      onprocessinginstruction: (_name, data) => out.push(`<${space(data)}>`),
    },
    { decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.end(html);
  return out.join('').replace(/> </g, '><').replace(/ </g, '<').replace(/> /g, '>');
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
