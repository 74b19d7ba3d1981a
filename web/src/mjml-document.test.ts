/** Issue 33: what the visual MJML editor is given and what it gives back, apart from the editor. */
import { describe, expect, it } from 'vitest';
import { formatMjml, forXmlParser, fromEditorDocument, toEditorDocument } from './mjml-document.ts';

const SECTION = (words: string) => `<mj-section><mj-column><mj-text>${words}</mj-text></mj-column></mj-section>`;

describe('MJML to the visual editor and back (issue 33)', () => {
  it('opens a whole document as it is', () => {
    const source = `<mjml>\n  <mj-body>\n    ${SECTION('Hi')}\n  </mj-body>\n</mjml>\n`;
    expect(toEditorDocument(source)).toEqual({ document: source, shape: { fragment: false, slot: false } });
    // a comment before <mjml> does not make it a fragment
    expect(toEditorDocument(`<!-- house style -->\n${source}`)?.shape.fragment).toBe(false);
  });

  it('wraps a fragment of sections in a document, and takes it out again', () => {
    const fragment = `${SECTION('One')}\n${SECTION('Two')}\n`;
    const opened = toEditorDocument(fragment)!;
    expect(opened.shape).toEqual({ fragment: true, slot: false });
    expect(opened.document).toBe(`<mjml><mj-body>${fragment}</mj-body></mjml>`);
    // the editor writes one line, with attributes of its own on the body
    const exported = `<mjml><mj-body width="600px">${SECTION('One')}${SECTION('Two')}</mj-body></mjml>`;
    const back = fromEditorDocument(exported, opened.shape);
    expect(back).not.toMatch(/mjml|mj-body/);
    expect(back).toBe(['<mj-section>', '  <mj-column>', '    <mj-text>One</mj-text>', '  </mj-column>', '</mj-section>', '<mj-section>', '  <mj-column>', '    <mj-text>Two</mj-text>', '  </mj-column>', '</mj-section>', ''].join('\n'));
  });

  it('carries a layout slot between sections as a raw block, bare again on the way back', () => {
    const source = `<mjml><mj-body>${SECTION('Header')}\n{{ content }}\n${SECTION('Footer')}</mj-body></mjml>`;
    const opened = toEditorDocument(source)!;
    expect(opened.shape).toEqual({ fragment: false, slot: true });
    expect(opened.document).toBe(`<mjml><mj-body>${SECTION('Header')}\n<mj-raw>{{ content }}</mj-raw>\n${SECTION('Footer')}</mj-body></mjml>`);
    const back = fromEditorDocument(opened.document.replace(/\n/g, ''), opened.shape);
    expect(back).toContain('\n    {{ content }}\n');
    expect(back).not.toContain('mj-raw');
  });

  it('finds the slot between sections of a wrapper, and in a fragment', () => {
    const wrapped = toEditorDocument(`<mjml><mj-body><mj-wrapper>${SECTION('A')}{{content}}</mj-wrapper></mj-body></mjml>`)!;
    expect(wrapped.document).toContain('</mj-section><mj-raw>{{ content }}</mj-raw></mj-wrapper>');
    const fragment = toEditorDocument(`${SECTION('A')}\n{{ content }}\n`)!;
    expect(fragment.shape).toEqual({ fragment: true, slot: true });
    expect(fromEditorDocument(fragment.document, fragment.shape)).toBe(['<mj-section>', '  <mj-column>', '    <mj-text>A</mj-text>', '  </mj-column>', '</mj-section>', '{{ content }}', ''].join('\n'));
  });

  it('leaves a slot inside a text block alone: it is text there', () => {
    const source = `<mjml><mj-body><mj-section><mj-column><mj-text css-class="content">\n  {{ content }}\n</mj-text></mj-column></mj-section></mj-body></mjml>`;
    const opened = toEditorDocument(source)!;
    expect(opened).toEqual({ document: source, shape: { fragment: false, slot: false } });
    expect(fromEditorDocument(source, opened.shape)).toContain('<mj-text css-class="content">\n  {{ content }}\n</mj-text>');
  });

  it('refuses a source that already holds the raw slot block, which would come back bare', () => {
    expect(toEditorDocument(`<mjml><mj-body>${SECTION('A')}<mj-raw>{{ content }}</mj-raw></mj-body></mjml>`)).toBeNull();
    expect(toEditorDocument(`${SECTION('A')}<mj-raw>\n  {{- content -}}\n</mj-raw>`)).toBeNull();
    // a raw block with anything else in it is fine
    expect(toEditorDocument(`<mjml><mj-body><mj-raw><p>{{ content }} and more</p></mj-raw></mj-body></mjml>`)).not.toBeNull();
  });
});

describe('MJML spelled for the editor’s XML parser (issue 33)', () => {
  it('writes named entities as numbers, a bare & as &amp;, and keeps the XML ones', () => {
    expect(forXmlParser('<mj-text>a&nbsp;b</mj-text>')).toBe('<mj-text>a&#160;b</mj-text>');
    expect(forXmlParser('<mj-text>Tom & Jerry</mj-text>')).toBe('<mj-text>Tom &amp; Jerry</mj-text>');
    expect(forXmlParser('<mj-text>Tom &amp; Jerry &lt;3 &quot;x&quot; &copy;</mj-text>')).toBe('<mj-text>Tom &amp; Jerry &lt;3 &quot;x&quot; &#169;</mj-text>');
    expect(forXmlParser('<mj-text>&#160;&#xA0;</mj-text>')).toBe('<mj-text>&#160;&#xA0;</mj-text>');
    // an unknown name is text, not an entity
    expect(forXmlParser('<mj-text>&madeup;</mj-text>')).toBe('<mj-text>&amp;madeup;</mj-text>');
    expect(forXmlParser('<mj-button href="https://x.example/?a=1&b=2">Go</mj-button>')).toBe('<mj-button href="https://x.example/?a=1&amp;b=2">Go</mj-button>');
  });

  it('closes void elements, however they were written', () => {
    expect(forXmlParser('<mj-text>one<br>two<br/>three<BR />four</mj-text>')).toBe('<mj-text>one<br/>two<br/>three<BR/>four</mj-text>');
    expect(forXmlParser('<mj-text><img src="x"></mj-text>')).toBe('<mj-text><img src="x"/></mj-text>');
    expect(forXmlParser('<mj-text><img alt="a > b" src="x"><hr></mj-text>')).toBe('<mj-text><img alt="a > b" src="x"/><hr/></mj-text>');
    // MJML's own elements are left as written
    expect(forXmlParser('<mj-image src="x" /><mj-divider/>')).toBe('<mj-image src="x" /><mj-divider/>');
  });

  it('keeps the space between two inline elements that the editor would drop with its line break', () => {
    const source = '<mj-text align="right">\n  <a href="/shop">Shop</a> &nbsp;\n  <a href="/new">New</a>\n  <b>x</b></mj-text>';
    // the text's first line break touches the element's own tag: it is left alone
    expect(forXmlParser(source)).toBe('<mj-text align="right">\n  <a href="/shop">Shop</a> &#160; <a href="/new">New</a> <b>x</b></mj-text>');
    // only inside HTML content: whitespace between MJML elements stays as written
    expect(forXmlParser('<mj-column>\n  <mj-text>a</mj-text>\n  <mj-text>b</mj-text>\n</mj-column>')).toBe('<mj-column>\n  <mj-text>a</mj-text>\n  <mj-text>b</mj-text>\n</mj-column>');
    // a self-closed text element is no start of content
    const afterSelfClosed = '<mj-text /><mj-column>\n<mj-spacer />\n<mj-text>b</mj-text></mj-column>';
    expect(forXmlParser(afterSelfClosed)).toBe(afterSelfClosed);
  });
});

describe('MJML indented for source mode (issue 33)', () => {
  it('puts each MJML element on its own line, two spaces a level, comments included', () => {
    const oneLine = '<mjml><mj-head><mj-attributes><mj-all font-family="Arial"/></mj-attributes></mj-head><mj-body><!-- top --><mj-section><mj-column><mj-image src="x"/><mj-divider/></mj-column></mj-section></mj-body></mjml>';
    expect(formatMjml(oneLine)).toBe(
      [
        '<mjml>',
        '  <mj-head>',
        '    <mj-attributes>',
        '      <mj-all font-family="Arial"/>',
        '    </mj-attributes>',
        '  </mj-head>',
        '  <mj-body>',
        '    <!-- top -->',
        '    <mj-section>',
        '      <mj-column>',
        '        <mj-image src="x"/>',
        '        <mj-divider/>',
        '      </mj-column>',
        '    </mj-section>',
        '  </mj-body>',
        '</mjml>',
        '',
      ].join('\n'),
    );
  });

  it('copies the inside of text, button, raw and style elements as written', () => {
    const text = '<mj-text align="center">  <p>One</p>\n<pre>  two\n   three</pre> <b>four</b> </mj-text>';
    const button = '<mj-button href="#"> Buy <i>now</i></mj-button>';
    const raw = '<mj-raw><!--[if mso]><table><tr><td><![endif]-->\n<div> x </div></mj-raw>';
    const style = '<mj-style inline="inline">\n  .a > b { color: red; }\n</mj-style>';
    const formatted = formatMjml(`<mjml><mj-head>${style}</mj-head><mj-body><mj-section><mj-column>${text}${button}</mj-column></mj-section>${raw}</mj-body></mjml>`);
    for (const inside of [text, button, raw, style]) expect(formatted).toContain(inside);
    expect(formatted).toContain(`\n        ${text}\n`);
    expect(formatted).toContain(`\n    ${raw}\n`);
  });

  it('changes nothing but whitespace between elements: formatting twice is formatting once', () => {
    const once = formatMjml(`<mjml><mj-body>${SECTION('<p>Hi <b>there</b></p>')}</mj-body></mjml>`);
    expect(formatMjml(once)).toBe(once);
    expect(once.replace(/>\s+</g, '><').trim()).toBe(`<mjml><mj-body>${SECTION('<p>Hi <b>there</b></p>')}</mj-body></mjml>`);
  });
});
