import { describe, expect, it } from 'vitest';
import { checkTemplateSyntax } from './template-syntax.ts';

describe('D17.4: Liquid syntax is checked on save', () => {
  it('accepts merge fields, filters, tags and plain text', () => {
    expect(() => checkTemplateSyntax({ html: '<p>Hi {{ first_name | default: "there" }}</p>{% if vip %}VIP{% endif %}', text: 'plain', subject: null })).not.toThrow();
  });

  it.each([
    ['html', '<p>{% if vip %}VIP</p>', /html has a Liquid syntax error: .*if/],
    ['subject', 'Hi {{ first_name ', /subject has a Liquid syntax error/],
    ['text', 'Hi {{ first_name | no_such_filter }}', /text has a Liquid syntax error: .*no_such_filter/],
    ['preheader', '{% iff x %}{% endiff %}', /preheader has a Liquid syntax error: .*iff/],
  ])('refuses a broken %s, naming the field', (field, source, message) => {
    expect(() => checkTemplateSyntax({ [field]: source })).toThrow(message);
  });
});
