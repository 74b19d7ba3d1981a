import { describe, expect, it } from 'vitest';
import { checkTemplateLimits, liquidTagCount, TEMPLATE_LIMITS } from './template-limits.ts';

describe('template limits (issue 14 H2)', () => {
  it('counts outputs, tags and the lines of a {% liquid %} tag', () => {
    expect(liquidTagCount('plain { text } with { braces')).toBe(0);
    expect(liquidTagCount('Hi {{ first_name }}, {% if x %}yes{% endif %}')).toBe(3);
    expect(liquidTagCount('{{- a -}}{%- b -%}')).toBe(2);
    expect(liquidTagCount('{% liquid\nassign a = 1\nif a\necho a\nendif\n%} and {{ b }}')).toBe(1 + 5 + 1);
    expect(liquidTagCount('{%- liquid\necho a\necho b')).toBe(1 + 2); // never closed: counted to the end
    expect(liquidTagCount('{')).toBe(0);
    expect(liquidTagCount('x{{')).toBe(1);
  });

  it('takes a template at the limits and refuses one over, naming the field', () => {
    const atLimit = '{{ x }}'.repeat(TEMPLATE_LIMITS.tagsMax);
    expect(() => checkTemplateLimits({ html: atLimit, text: null, subject: undefined })).not.toThrow();
    expect(() => checkTemplateLimits({ html: '<p>ok</p>', text: atLimit + '{{ y }}' })).toThrow(/^text must hold at most 10000 Liquid tags/);
    expect(() => checkTemplateLimits({ html: 'x'.repeat(TEMPLATE_LIMITS.bytesMax) })).not.toThrow();
    expect(() => checkTemplateLimits({ html: 'x'.repeat(TEMPLATE_LIMITS.bytesMax + 1) })).toThrow(/^html must be at most 262144 bytes/);
    // Bytes, not characters: 2-byte characters reach the limit at half the length.
    expect(() => checkTemplateLimits({ html: 'é'.repeat(TEMPLATE_LIMITS.bytesMax / 2 + 1) })).toThrow(/^html must be at most/);
    expect(() => checkTemplateLimits({ html: `{% liquid\n${'echo a\n'.repeat(TEMPLATE_LIMITS.tagsMax)}%}` })).toThrow(/^html must hold/);
  });
});
