import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.ts';
import { compileContent, embeddable } from './compile-content.ts';
import { checkLayoutSlot, contentSlotCount } from './content.ts';

// D22: content compiled once when saved: its format, its layout, its CSS inlined; Liquid untouched.
const section = (inner: string) => `<mj-section><mj-column><mj-text>${inner}</mj-text></mj-column></mj-section>`;
const mjml = (...lines: string[]) => ['<mjml>', '<mj-body>', ...lines, '</mj-body>', '</mjml>'].join('\n');

async function refusal(run: Promise<unknown>): Promise<string> {
  const err = await run.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ValidationError);
  return (err as Error).message;
}

describe('compileContent: each format (D22)', () => {
  it('html is kept, with its <style> inlined into style attributes', async () => {
    const html = await compileContent({ format: 'html', body: '<style>p { color: red; }</style><p>Hi</p>' });
    expect(html).toContain('<p style="color: red;">Hi</p>');
    expect(html).not.toContain('<style>');
  });

  it('media queries survive inlining (responsive layouts need them)', async () => {
    const html = await compileContent({ format: 'html', body: '<style>p { color: red; } @media (max-width: 480px) { p { color: blue; } }</style><p>Hi</p>' });
    expect(html).toContain('@media (max-width: 480px)');
    expect(html).toContain('style="color: red;"');
  });

  it('markdown becomes HTML', async () => {
    const html = await compileContent({ format: 'markdown', body: '# Title\n\nSome **bold** text.\n\n- one\n- two' });
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<li>one</li>');
  });

  it('mjml becomes responsive table HTML with inline styles', async () => {
    const html = await compileContent({ format: 'mjml', body: mjml(section('Hello')) });
    expect(html).not.toContain('<mj-');
    expect(html).toMatch(/<table[^>]*style="/);
    expect(html).toContain('Hello');
  });

  it('issue 34: MJML links no web font the design did not declare (its default, Ubuntu, is no Google Fonts link)', async () => {
    const plain = await compileContent({ format: 'mjml', body: mjml(section('Hello')) });
    expect(plain).toContain('Ubuntu');
    expect(plain).not.toContain('fonts.googleapis.com');
    const declared = '<mjml><mj-head><mj-font name="Lato" href="https://fonts.example.com/lato.css" /><mj-attributes><mj-all font-family="Lato, Arial" /></mj-attributes></mj-head><mj-body><mj-section><mj-column><mj-text>Hi</mj-text></mj-column></mj-section></mj-body></mjml>';
    expect(await compileContent({ format: 'mjml', body: declared })).toContain('href="https://fonts.example.com/lato.css"');
  });
});

describe('compileContent: Liquid is left exactly as written (D22)', () => {
  it('in hrefs, through markdown (which would URL-encode it)', async () => {
    const html = await compileContent({ format: 'markdown', body: '[Unsubscribe]({{ unsubscribe_url }}) and [you](https://example.com/?e={{ email | url_encode }})' });
    expect(html).toContain('href="{{ unsubscribe_url }}"');
    expect(html).toContain('href="https://example.com/?e={{ email | url_encode }}"');
  });

  it('in styles and attributes, through juice and mjml', async () => {
    const html = await compileContent({ format: 'html', body: '<style>a { color: blue; }</style><a href="{{ preferences_url }}" style="color: {{ brand_color | default: \'red\' }}">x</a>' });
    expect(html).toContain('href="{{ preferences_url }}"');
    expect(html).toContain("{{ brand_color | default: 'red' }}");
    const fromMjml = await compileContent({ format: 'mjml', body: mjml('<mj-section><mj-column><mj-button href="{{ webview_url }}">Open</mj-button></mj-column></mj-section>') });
    expect(fromMjml).toContain('href="{{ webview_url }}"');
  });

  it('in text, tags and loops included', async () => {
    const body = mjml(section('Hi {{ first_name | default: "there" }} {% if vip %}VIP{% endif %} {% for i in items %}{{ i }}{% endfor %}'));
    const html = await compileContent({ format: 'mjml', body });
    expect(html).toContain('Hi {{ first_name | default: "there" }} {% if vip %}VIP{% endif %} {% for i in items %}{{ i }}{% endfor %}');
  });
});

describe('compileContent: layouts (D22)', () => {
  const htmlLayout = { format: 'html' as const, body: '<style>.box { border: 1px solid #ccc; }</style><div class="box">{{ content }}</div><a href="{{ unsubscribe_url }}">u</a>' };

  it('html content placed in an html layout, the layout\'s CSS inlined', async () => {
    const html = await compileContent({ format: 'html', body: '<p>Body {{ first_name }}</p>' }, htmlLayout);
    expect(html).toContain('<div class="box" style="border: 1px solid #ccc;"><p>Body {{ first_name }}</p></div>');
    expect(html).toContain('href="{{ unsubscribe_url }}"');
  });

  it('markdown content compiled first, then placed in an mjml layout\'s mj-text', async () => {
    const layout = { format: 'mjml' as const, body: mjml(section('{{ content }}')) };
    const html = await compileContent({ format: 'markdown', body: '## News for {{ first_name }}' }, layout);
    expect(html).toContain('<h2>News for {{ first_name }}</h2>');
    expect(html).not.toContain('{{ content }}');
  });

  it('mjml content spliced as source between an mjml layout\'s sections', async () => {
    const layout = { format: 'mjml' as const, body: mjml(section('Header'), '{{ content }}', section('Footer')) };
    const html = await compileContent({ format: 'mjml', body: section('Middle') }, layout);
    expect(html.indexOf('Header')).toBeLessThan(html.indexOf('Middle'));
    expect(html.indexOf('Middle')).toBeLessThan(html.indexOf('Footer'));
    expect(html).not.toContain('<mj-');
  });

  it('a whole mjml document placed in an html layout', async () => {
    const html = await compileContent({ format: 'mjml', body: mjml(section('Inside')) }, htmlLayout);
    expect(html).toContain('Inside');
    expect(html).not.toMatch(/<html[\s\S]*<html/);
  });

  it('{{-content-}} with whitespace dashes is the slot too', async () => {
    const html = await compileContent({ format: 'html', body: '<b>x</b>' }, { format: 'html', body: '<div>{{- content -}}</div>' });
    expect(html).toContain('<div><b>x</b></div>');
  });
});

describe('compileContent: MJML errors name the right line (D22)', () => {
  it('content alone: its own line, named by the field', async () => {
    const message = await refusal(compileContent({ format: 'mjml', body: mjml(section('ok'), '<mj-section><mj-column><mj-text colour="red">x</mj-text></mj-column></mj-section>') }, null, 'html'));
    expect(message).toMatch(/^html line 4 has an MJML error/);
    expect(message).toContain('colour');
    expect(message).not.toMatch(/\/tmp|node_modules/);
  });

  it('mjml content in an mjml layout: the content\'s line when the error is in the content', async () => {
    const layout = { format: 'mjml' as const, body: mjml(section('Header'), '{{ content }}', section('Footer')) };
    const content = [section('one'), section('two'), '<mj-section><mj-column><mj-text colour="red">x</mj-text></mj-column></mj-section>'].join('\n');
    const message = await refusal(compileContent({ format: 'mjml', body: content }, layout, 'html'));
    expect(message).toMatch(/^html line 3 has an MJML error/);
  });

  it('mjml content in an mjml layout: the layout\'s line when the error is in the layout', async () => {
    const layout = { format: 'mjml' as const, body: mjml(section('Header'), '{{ content }}', '<mj-section><mj-column><mj-text colour="red">x</mj-text></mj-column></mj-section>') };
    const content = [section('one'), section('two'), section('three')].join('\n');
    const message = await refusal(compileContent({ format: 'mjml', body: content }, layout, 'html'));
    expect(message).toMatch(/^the layout's line 5 has an MJML error/);
  });

  it('text that is not MJML at all', async () => {
    expect(await refusal(compileContent({ format: 'mjml', body: 'hello' }, null, 'body'))).toMatch(/^body/);
  });
});

describe('checkLayoutSlot (D22)', () => {
  it('counts {{ content }} in its spellings', () => {
    expect(contentSlotCount('{{content}} {{ content }} {{- content -}}')).toBe(3);
    expect(contentSlotCount('{{ contents }} {{ content_x }}')).toBe(0);
  });

  it('400 for none and for two, naming the field', () => {
    expect(() => checkLayoutSlot('<p>none</p>', 'body')).toThrow(/^body: .*it has none/);
    expect(() => checkLayoutSlot('{{ content }}{{ content }}', 'body')).toThrow(/exactly once; it has 2/);
    expect(() => checkLayoutSlot('<div>{{ content }}</div>')).not.toThrow();
  });
});

describe('embeddable (issue 28 C1)', () => {
  /** What embeddable replaces: patterns that rescan to the end from every unclosed `<body` and `<style`. */
  const old = (html: string) => {
    const body = /<body\b[^>]*>([\s\S]*)<\/body>/i.exec(html);
    if (!body) return html;
    return (html.slice(0, body.index).match(/<style\b[^>]*>[\s\S]*?<\/style>/gi) ?? []).join('') + body[1];
  };

  it('takes what the old patterns took, on hand-picked and on random documents', () => {
    const picked = [
      '',
      '<p>no body</p>',
      '<html><head><style>a{}</style><STYLE x>b{}</STYLE></head><BODY class="x"><p>hi</p></body></html>',
      '<head><style x="</style>">a</style></head><body><style>inside</style>x</body>',
      '<body>one</body><body>two</body>',
      '<body <p></body>',
      '<style>a<body>b</style></body>',
      '<bodyx>a</body>',
    ];
    const parts = ['<body>', '<body x>', '</body>', '<style>', '</style>', '<style', '<body', '>', 'a'];
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const generated = Array.from({ length: 3000 }, () => Array.from({ length: Math.floor(random() * 9) }, () => parts[Math.floor(random() * parts.length)]).join(''));
    for (const html of [...picked, ...generated]) expect(embeddable(html), html).toBe(old(html));
  });

  it('reads 250 KB of unclosed <body and <style in one pass', () => {
    const unclosed = '<style>'.repeat(18_000) + '<body>'.repeat(21_000);
    expect(embeddable(unclosed)).toBe(unclosed);
    expect(embeddable(unclosed + '</body>')).toBe('<body>'.repeat(20_999));
  });
});
