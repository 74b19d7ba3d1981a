import { describe, expect, it } from 'vitest';
import { CompiledCampaign, compileCampaign, DEFAULT_RENDER_LIMITS, replaceTrackableHrefs } from './render.ts';
import { MAX_TEXT_SOURCE_TAGS, RenderLimitError } from './liquid-sandbox.ts';

const urls = {
  open: 'https://t.example/t/o/OPEN',
  unsubscribe: 'https://t.example/u/UNSUB',
  preferences: 'https://t.example/p/PREFS',
  trap: 'https://t.example/t/t/TRAP',
  webview: 'https://t.example/w/VIEW',
  click: (i: number) => `https://t.example/t/c/CLICK${i}`,
};
const ann = { email: 'ann@example.com', first_name: 'Ann', last_name: null, phone: null, custom_fields: { plan: 'gold', score: 3 } };

describe('rendering campaign messages', () => {
  it('D23: puts a hidden trap link first in the body of every HTML message, and never in the text part', () => {
    const trap = '<a class="sw-trap" href="https://t.example/t/t/TRAP" aria-hidden="true" tabindex="-1"';
    const wrapped = new CompiledCampaign({ subject: 's', html: '<html><body class="x"><p>Hi</p></body></html>', text: null, preheader: 'Soon' }).render(ann, urls);
    expect(wrapped.html).toContain(`<body class="x">${trap}`);
    expect(wrapped.html!.split('t/t/TRAP')).toHaveLength(2);
    expect(wrapped.text).not.toContain('TRAP');
    const fragment = new CompiledCampaign({ subject: 's', html: '<p>Hi</p>', text: null, preheader: null }).render(ann, urls);
    expect(fragment.html!.startsWith(trap)).toBe(true);
    expect(fragment.text).not.toContain('TRAP');
    // Not one of the campaign's links: a hit on it is no click of the content.
    expect(new CompiledCampaign({ subject: 's', html: '<p>Hi</p>', text: null, preheader: null }).links).toEqual([]);
    const textOnly = new CompiledCampaign({ subject: 's', html: null, text: 'Hi', preheader: null }).render(ann, urls);
    expect(textOnly.text).not.toContain('TRAP');
  });

  it('merges contact fields and custom fields into subject, HTML and text', () => {
    const c = new CompiledCampaign({ subject: 'Hi {{first_name}}', html: '<p>{{ first_name }} on {{ plan }} / {{ custom_fields.score }}</p>', text: 'Hello {{first_name}}', preheader: null });
    const m = c.render(ann, urls);
    expect(m.subject).toBe('Hi Ann');
    expect(m.html).toContain('<p>Ann on gold / 3</p>');
    expect(m.text).toContain('Hello Ann');
    expect(m.text).toContain('Unsubscribe: https://t.example/u/UNSUB');
  });

  it('escapes merged values in HTML but not in the subject', () => {
    const c = new CompiledCampaign({ subject: '{{first_name}}', html: '<p>{{first_name}}</p>', text: null, preheader: null });
    const m = c.render({ ...ann, first_name: '<script>alert(1)</script>&' }, urls);
    expect(m.html).toContain('<p>&lt;script&gt;alert(1)&lt;/script&gt;&amp;</p>');
    expect(m.subject).toBe('<script>alert(1)</script>&');
  });

  it('cannot reach files, the environment or prototypes', () => {
    for (const source of ["{% include '/etc/passwd' %}", "{% render 'package.json' %}", "{% layout 'x' %}"]) {
      expect(() => new CompiledCampaign({ subject: 's', html: source, text: null, preheader: null }).render(ann, urls)).toThrow();
    }
    const c = new CompiledCampaign({ subject: 's', html: '[{{ constructor }}][{{ email.constructor }}][{{ process.env.HOME }}][{{ __proto__ }}]', text: null, preheader: null });
    expect(c.render(ann, urls).html).toContain('[][][][]');
  });

  it('rewrites the campaign own links to click-tracking URLs, keeps a list of them, and leaves merge-field links alone', () => {
    const c = new CompiledCampaign({
      subject: 's',
      html: '<a href="https://shop.example/a?x=1&amp;y=2">A</a> <a class="b" href=\'http://b.example/\'>B</a> <a href="https://p.example/{{email}}">P</a> <a href="mailto:x@y.z">M</a>',
      text: null,
      preheader: null,
    });
    expect(c.links).toEqual(['https://shop.example/a?x=1&y=2', 'http://b.example/']);
    const html = c.render(ann, urls).html!;
    expect(html).toContain('<a href="https://t.example/t/c/CLICK0">A</a>');
    expect(html).toContain(`<a class="b" href='https://t.example/t/c/CLICK1'>B</a>`);
    expect(html).toContain('<a href="https://p.example/ann@example.com">P</a>');
    expect(html).toContain('href="mailto:x@y.z"');
  });

  it('adds a visible unsubscribe link and an open pixel before </body>, unless the content places the link itself', () => {
    const withBody = new CompiledCampaign({ subject: 's', html: '<html><body><p>x</p></body></html>', text: null, preheader: null }).render(ann, urls).html!;
    expect(withBody).toMatch(/<a href="https:\/\/t\.example\/u\/UNSUB">Unsubscribe<\/a> · <a href="https:\/\/t\.example\/p\/PREFS">Manage your subscriptions<\/a><\/p><img src="https:\/\/t\.example\/t\/o\/OPEN"[^>]*><\/body>/);
    const own = new CompiledCampaign({ subject: 's', html: '<a href="{{ unsubscribe_url }}">Leave</a>', text: null, preheader: null }).render(ann, urls).html!;
    expect(own).toContain('<a href="https://t.example/u/UNSUB">Leave</a>');
    expect(own.match(/UNSUB/g)).toHaveLength(1);
  });

  it('D20, D26.4: {{ preferences_url }} is a merge field; the footer adds the preference centre only where the content has no link to it, in HTML and text', () => {
    const placed = new CompiledCampaign({ subject: 's', html: '<a href="{{ preferences_url }}">Your lists</a>', text: 'Lists: {{ preferences_url }}', preheader: null }).render(ann, urls);
    expect(placed.html).toContain('<a href="https://t.example/p/PREFS">Your lists</a>');
    // One link to the preference centre: the content's own (D26.4).
    expect(placed.html!.match(/t\.example\/p\/PREFS/g)).toHaveLength(1);
    expect(placed.html).not.toContain('Manage your subscriptions');
    expect(placed.html).toContain('<p style="font-size:12px;color:#666"><a href="https://t.example/u/UNSUB">Unsubscribe</a></p>');
    expect(placed.text).toContain('Lists: https://t.example/p/PREFS');
    expect(placed.text!.match(/t\.example\/p\/PREFS/g)).toHaveLength(1);
    expect(placed.text).toMatch(/--\nUnsubscribe: https:\/\/t\.example\/u\/UNSUB\n$/);
    // With both links of its own, nothing is added.
    const both = new CompiledCampaign({ subject: 's', html: '<a href="{{ unsubscribe_url }}">Leave</a> <a href="{{ preferences_url }}">Lists</a>', text: null, preheader: null }).render(ann, urls);
    expect(both.html).not.toContain('font-size:12px;color:#666');
    expect(both.html!.match(/t\.example\/p\/PREFS/g)).toHaveLength(1);
    // With its own unsubscribe link the footer still carries the preference centre.
    const own = new CompiledCampaign({ subject: 's', html: '<a href="{{ unsubscribe_url }}">Leave</a>', text: null, preheader: null }).render(ann, urls);
    expect(own.html).toContain('<p style="font-size:12px;color:#666"><a href="https://t.example/p/PREFS">Manage your subscriptions</a></p>');
    // The text made from the HTML keeps the footer's link.
    expect(own.text).toContain('https://t.example/p/PREFS');
    // Not one of the campaign's tracked links.
    expect(new CompiledCampaign({ subject: 's', html: '<a href="{{ preferences_url }}">x</a>', text: null, preheader: null }).links).toEqual([]);
  });

  it('keeps the subject on one line', () => {
    const c = new CompiledCampaign({ subject: 'a{{first_name}}b', html: null, text: 'x', preheader: null });
    expect(c.render({ ...ann, first_name: '\r\nBcc: evil@example.com' }, urls).subject).toBe('a Bcc: evil@example.comb');
  });
});

const render = (content: Partial<{ subject: string; html: string | null; text: string | null; preheader: string | null }>, limits = DEFAULT_RENDER_LIMITS) =>
  new CompiledCampaign({ subject: 's', html: null, text: null, preheader: null, ...content }, limits).render(ann, urls);
const refusal = (fn: () => unknown): RenderLimitError => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RenderLimitError);
    return err as RenderLimitError;
  }
  throw new Error('rendered without a limit error');
};

describe('issue 14 H3, H5: one message has one render budget and bounded output', () => {

  it('H5: a small template that expands enormously stops at the HTML cap, while rendering', () => {
    const bomb = '{% for a in (1..1000) %}{% for b in (1..1000) %}<p>0123456789012345678901234567890123456789</p>{% endfor %}{% endfor %}';
    expect(bomb.length).toBeLessThan(200);
    expect(refusal(() => render({ html: bomb })).message).toBe('the rendered HTML is larger than 2 MB');
    expect(refusal(() => render({ text: bomb })).message).toBe('the rendered text is larger than 2 MB');
  });

  it('H5: output grown in a capture, never shown, is bounded too', () => {
    const doubling = '{% capture x %}0123456789{% endcapture %}{% for i in (1..40) %}{% capture x %}{{ x }}{{ x }}{% endcapture %}{% endfor %}done';
    expect(refusal(() => render({ text: doubling })).message).toMatch(/larger than a message may hold|writes more than a message may hold/);
  });

  it('H5: a link repeated by a loop cannot grow the HTML past the cap when the links are filled in', () => {
    const limits = { ...DEFAULT_RENDER_LIMITS, maxPartBytes: 10_000 };
    // 500 placeholders fit in 10,000 characters; their URLs do not.
    const html = '{% for i in (1..500) %}<a href="https://shop.example/">x</a>{% endfor %}';
    expect(refusal(() => render({ html }, limits)).message).toBe('the rendered HTML is larger than 9.8 KB');
  });

  it('H5: a subject over 998 bytes is a render error, not cut short', () => {
    expect(render({ subject: 'é'.repeat(499) }).subject).toHaveLength(499); // 998 bytes
    expect(refusal(() => render({ subject: 'é'.repeat(500) })).message).toBe('the rendered subject is longer than 998 bytes');
    expect(refusal(() => render({ subject: '{% for i in (1..100000) %}x{% endfor %}' })).message).toBe('the rendered subject is longer than 998 bytes');
  });

  it('H3: a template that loops past the time budget is a limit error with a plain reason', () => {
    const spin = '{% for a in (1..100000) %}{% for b in (1..1000) %}{% endfor %}{% endfor %}';
    expect(refusal(() => render({ html: spin }, { ...DEFAULT_RENDER_LIMITS, budgetMs: 50 })).message).toMatch(/^the message (took longer than 50 ms to render|needs more memory to render than a message may use)$/);
  });

  it('H5: ranges count against the memory a message may use', () => {
    expect(refusal(() => render({ text: '{% for i in (1..100000000) %}{% endfor %}' })).message).toBe('the message needs more memory to render than a message may use');
  });

  it('fills in every unsubscribe link of the text, the content\'s own and the footer\'s', () => {
    const text = render({ text: 'Leave: {{ unsubscribe_url }}' }).text!;
    expect(text.match(/https:\/\/t\.example\/u\/UNSUB/g)).toHaveLength(2);
    expect(text).not.toContain('sw-unsubscribe');
  });
});

describe('D17.2: the text part made from the HTML', () => {
  it('is made after the links are signed: tracked URLs, no markup, no pixel, image or preheader', () => {
    const text = render({
      html: '<h1>Sale</h1><p>Hi <b>{{ first_name }}</b> &amp; see <a href="https://shop.example/a">the shop</a>.</p><img src="https://cdn.example/x.png" alt="Banner">',
      preheader: 'Inbox line',
    }).text!;
    expect(text).toContain('SALE');
    expect(text).toContain('Hi Ann & see the shop [https://t.example/t/c/CLICK0]');
    expect(text).toContain('Unsubscribe [https://t.example/u/UNSUB]');
    expect(text).not.toMatch(/<[a-z/]|https:\/\/shop\.example|OPEN|x\.png|Banner|Inbox line/);
  });

  it("a campaign's own text is used as written; text-only content gets no HTML", () => {
    expect(render({ html: '<p>Hi</p>', text: 'Own words' }).text).toMatch(/^Own words\n/);
    expect(render({ text: 'Only words' }).html).toBeNull();
  });

  it('HTML with more tags than its text can be made from in bounded time is a limit error naming the way out', () => {
    // 2 MB of unclosed tags took over a minute in htmlparser2 (its stack costs its depth per tag).
    const deep = '<div><p><span>'.repeat(140_000); // 1.9 MB
    expect(refusal(() => render({ html: deep })).message).toBe(
      `the HTML has more than ${MAX_TEXT_SOURCE_TAGS.toLocaleString('en-US')} tags, too many to make its text part from; give it a text of its own`,
    );
    // The same HTML with a text of its own is never converted.
    expect(render({ html: deep, text: 'Own words' }).text).toMatch(/^Own words/);
    // Just under the cap, the worst nesting converts (cut at 64 levels); the budget is lifted here
    // so a busy machine cannot turn this into a time-limit error.
    expect(render({ html: '<b>'.repeat(MAX_TEXT_SOURCE_TAGS - 10) + 'end' }, { ...DEFAULT_RENDER_LIMITS, budgetMs: 60_000 }).text).not.toContain('<');
  });

  it('the conversion counts toward the message budget, and its text toward the part cap', () => {
    const words = 'lorem ipsum dolor sit amet '.repeat(70_000); // 1.9 MB, a handful of tags
    expect(refusal(() => render({ html: words }, { ...DEFAULT_RENDER_LIMITS, budgetMs: 5 })).message).toBe('the message took longer than 5 ms to render');
    // A rule is 4 bytes of HTML and a line of dashes in text.
    expect(refusal(() => render({ html: '<hr>'.repeat(1000) }, { ...DEFAULT_RENDER_LIMITS, maxPartBytes: 10_000 })).message).toBe('the text made from the HTML is larger than 9.8 KB');
  });
});

describe('issue 14 H2: finding trackable links scans each <a tag once', () => {
  // The whole-content regex this replaced: the same matches, found in quadratic time.
  const WHOLE_CONTENT = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"'<>\s]+)\2/gi;
  const mark = (whole: string, start: string, quote: string, url: string) => `[${start}|${quote}|${url}]`;
  const samples = [
    '<p><a href="https://a.test/x?y=1&amp;z=2">A</a> and <A class="b" HREF=\'http://b.test\'>B</A></p>',
    '<a title="no link">x</a><a href="mailto:x@y.test">m</a><a href = "https://c.test/{{ id }}">c</a>',
    '<abbr href="https://not.a.link">x</abbr><a\nhref="https://d.test">d</a>',
    '<a title="x>y" href="https://e.test">e</a>',
    '<a href="https://f.test">f</a><a ',
    '<a <a href="https://g.test">g</a>',
    'no links at all',
  ];
  it.each(samples)('finds what the whole-content regex found: %s', (html) => {
    expect(replaceTrackableHrefs(html, mark)).toBe(html.replace(WHOLE_CONTENT, mark));
  });
});

describe('D23: an A/B campaign compiled, a variant each', () => {
  it('merges each variant over the base, and numbers its links after the previous variants', () => {
    const base = { subject: 'Base', from_name: 'Ann', html: '<a href="https://x.test/a">a</a>', text: null, preheader: null };
    const variants = JSON.stringify([{ subject: 'A' }, { html: '<a href="https://x.test/b">b</a><a href="https://x.test/c">c</a>' }]);
    const [a, b] = compileCampaign({ ...base, variants });
    expect([a.links, b.links]).toEqual([['https://x.test/a'], ['https://x.test/b', 'https://x.test/c']]);
    const urls = { open: 'O', unsubscribe: 'U', preferences: 'P', trap: 'T', webview: 'W', click: (i: number) => `https://t.test/${i}` };
    const contact = { email: 'e@x.test', first_name: null, last_name: null, phone: null, custom_fields: {} };
    expect(a.render(contact, urls)).toMatchObject({ subject: 'A' });
    const rendered = b.render(contact, urls);
    expect(rendered.subject).toBe('Base');
    expect(rendered.html).toContain('https://t.test/1');
    expect(rendered.html).toContain('https://t.test/2');
    expect(compileCampaign({ ...base, variants: null })).toHaveLength(1);
  });
});

describe('D22: the sender reads the compiled content', () => {
  const base = { subject: 'S', from_name: null, html: '# source, not sent', text: null, preheader: null };

  it('uses compiled_html and each variant\'s compiled html when present; a variant without html of its own takes the base\'s', () => {
    const variants = JSON.stringify([{ subject: 'A' }, { html: 'variant source' }]);
    const [a, b] = compileCampaign({ ...base, variants, compiled_html: '<a href="https://x.test/base">b</a>', compiled_variants: JSON.stringify([null, '<a href="https://x.test/v">v</a>']) });
    expect([a.links, b.links]).toEqual([['https://x.test/base'], ['https://x.test/v']]);
  });

  it('uses html as it is for rows saved before D22 (no compiled content)', () => {
    const [only] = compileCampaign({ ...base, html: '<a href="https://x.test/raw">r</a>', variants: null, compiled_html: null, compiled_variants: null });
    expect(only.links).toEqual(['https://x.test/raw']);
  });
});

describe('D22: web view links, and renderings without pixel or trap', () => {
  const html = '<body><p>Hi {{ first_name }}</p><a href="https://example.com/a?x=1&amp;y=&quot;2&quot;">A</a><a href="{{ webview_url }}">View in browser</a></body>';

  it('puts the web view URL where {{ webview_url }} is, in HTML and text alike', () => {
    const compiled = new CompiledCampaign({ subject: 's', html, text: 'Online: {{ webview_url }}', preheader: null });
    const out = compiled.render(ann, urls);
    expect(out.html).toContain('href="https://t.example/w/VIEW"');
    expect(out.text).toContain('Online: https://t.example/w/VIEW');
  });

  it('leaves out the open pixel and the trap link when their URLs are null, keeping no empty tag', () => {
    const compiled = new CompiledCampaign({ subject: 's', html, text: null, preheader: null });
    const mailed = compiled.render(ann, urls).html!;
    expect(mailed).toContain('https://t.example/t/o/OPEN');
    expect(mailed).toContain('https://t.example/t/t/TRAP');
    const viewed = compiled.render(ann, { ...urls, open: null, trap: null }).html!;
    expect(viewed).not.toContain('<img');
    expect(viewed).not.toContain('sw-');
    expect(viewed).not.toContain('aria-hidden');
  });

  it('linkAt gives a link as the content wrote it, escaped for an attribute, whatever its variant offset', () => {
    // Variant 0 has links of its own; variant 1 keeps the base's, numbered after them.
    const [variant, base] = compileCampaign({ subject: 's', from_name: null, html: '<a href="https://a.example/1">1</a>', text: null, preheader: null, variants: JSON.stringify([{ html: '<a href="https://b.example/2?q=&quot;x&quot;">2</a>' }, {}]) });
    expect(base.linkAt(1)).toBe('https://a.example/1');
    expect(base.linkAt(0)).toBe('#');
    expect(variant.linkAt(0)).toBe('https://b.example/2?q=&quot;x&quot;');
    const out = variant.render(ann, { ...urls, click: (i) => variant.linkAt(i) }).html!;
    expect(out).toContain('href="https://b.example/2?q=&quot;x&quot;"');
  });
});

describe('D17.2: the text part made once per campaign from the HTML template', () => {
  // Each case's text must be what converting each rendered message would give (textFromHtml null).
  const perMessage = (c: CompiledCampaign) => {
    (c as unknown as { textFromHtml: null }).textFromHtml = null;
    return c;
  };
  const both = (html: string, contact = ann) => {
    const once = new CompiledCampaign({ subject: 's', html, text: null, preheader: null });
    const each = perMessage(new CompiledCampaign({ subject: 's', html, text: null, preheader: null }));
    return { once: once.render(contact, urls).text!, each: each.render(contact, urls).text!, template: (once as unknown as { textFromHtml: unknown }).textFromHtml };
  };
  const words = (t: string) => t.replace(/\s+/g, ' ').trim();

  it.each([
    ['merge fields and an escaped value', '<p>Hi {{ first_name }} &amp; {{ last_name | default: "friend of ours" }}</p>'],
    ['a heading, upper-cased as html-to-text does', '<h1>Hello {{ first_name }}</h1><p>Body</p>'],
    ['control flow and a loop', '<p>{% if first_name %}Dear {{ first_name }}{% else %}Hello{% endif %}</p><ul>{% for i in (1..3) %}<li>Item {{ i }}</li>{% endfor %}</ul>'],
    ['tracked links, the unsubscribe link and a link built from merge fields', '<p><a href="https://example.com/a">Read</a> <a href="https://example.com/?u={{ email }}">Yours</a> <a href="{{ unsubscribe_url }}">Leave</a></p>'],
  ])('%s: the same words as converting each message', (_name, html) => {
    const { once, each, template } = both(html);
    expect(template).not.toBeNull();
    expect(words(once)).toBe(words(each));
  });

  it('falls back to converting each message when a tag sits where html-to-text drops it (inside a skipped image)', () => {
    const { once, each, template } = both('<p>{% if first_name %}Hi<img alt="{% endif %}" src="x.png"></p>');
    expect(template).toBeNull();
    expect(once).toBe(each);
  });
});
