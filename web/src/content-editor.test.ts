/** D22: the visual editor's rules apart from the browser (the browser test covers the editor itself). */
import { describe, expect, it } from 'vitest';
import { customFieldExpression, formatOf, liquid, mergeTags, safeHref } from './content-editor.ts';

describe('content editor rules (D22)', () => {
  it('offers contact fields, the account custom fields and the message links as Liquid', () => {
    const tags = mergeTags(['plan', 'favourite colour']);
    expect(tags.map((t) => liquid(t.expression))).toEqual([
      '{{ email }}',
      '{{ first_name }}',
      '{{ last_name }}',
      '{{ phone }}',
      '{{ custom_fields.plan }}',
      '{{ custom_fields["favourite colour"] }}',
      '{{ unsubscribe_url }}',
      '{{ preferences_url }}',
      '{{ webview_url }}',
    ]);
    expect(tags.filter((t) => t.link).map((t) => t.expression)).toEqual(['unsubscribe_url', 'preferences_url', 'webview_url']);
  });

  it('quotes a custom field key that is not an identifier, so a hostile key cannot break out of the tag', () => {
    expect(customFieldExpression('score_2')).toBe('custom_fields.score_2');
    expect(customFieldExpression('a"] }}{% raw %}')).toBe('custom_fields["a\\"] }}{% raw %}"]');
    expect(customFieldExpression('back\\slash')).toBe('custom_fields["back\\\\slash"]');
  });

  it('drops link targets that run script, however they are disguised', () => {
    for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', 'vbscript:x', 'data:text/html,<script>']) expect(safeHref(bad)).toBe('');
    for (const good of ['https://shop.example/', '{{ unsubscribe_url }}', 'mailto:a@example.com', '/relative']) expect(safeHref(good)).toBe(good);
  });

  it('reads a campaign format, absent meaning html', () => {
    expect(formatOf({})).toBe('html');
    expect(formatOf({ format: 'mjml' })).toBe('mjml');
    expect(formatOf({ format: 'markdown' })).toBe('markdown');
    expect(formatOf({ format: 'other' })).toBe('html');
  });
});
