import { describe, expect, it } from 'vitest';
import { CompiledCampaign } from './render.ts';

const urls = {
  open: 'https://t.example/t/o/OPEN',
  unsubscribe: 'https://t.example/u/UNSUB',
  click: (i: number) => `https://t.example/t/c/CLICK${i}`,
};
const ann = { email: 'ann@example.com', first_name: 'Ann', last_name: null, phone: null, custom_fields: { plan: 'gold', score: 3 } };

describe('rendering campaign messages', () => {
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
    expect(withBody).toMatch(/<a href="https:\/\/t\.example\/u\/UNSUB">Unsubscribe<\/a><\/p><img src="https:\/\/t\.example\/t\/o\/OPEN"[^>]*><\/body>/);
    const own = new CompiledCampaign({ subject: 's', html: '<a href="{{ unsubscribe_url }}">Leave</a>', text: null, preheader: null }).render(ann, urls).html!;
    expect(own).toContain('<a href="https://t.example/u/UNSUB">Leave</a>');
    expect(own.match(/UNSUB/g)).toHaveLength(1);
  });

  it('keeps the subject on one line', () => {
    const c = new CompiledCampaign({ subject: 'a{{first_name}}b', html: null, text: 'x', preheader: null });
    expect(c.render({ ...ann, first_name: '\r\nBcc: evil@example.com' }, urls).subject).toBe('a Bcc: evil@example.comb');
  });
});
