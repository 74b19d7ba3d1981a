/** The contact page's custom fields (web/src/custom-fields.ts): saving the form keeps their JSON types (D11, D17.6). */
import { describe, expect, it } from 'vitest';
import { customValueToSave } from './custom-fields.ts';

describe('a custom field as the contact page saves it', () => {
  it.each([[true], [false], [3], [4.5], ['text'], ['true']])('an unchanged %j is sent as it was', (value) => {
    expect(customValueToSave(value, String(value))).toBe(value);
  });

  it('an edited number or boolean stays one when the text still reads as one, else becomes text', () => {
    expect(customValueToSave(3, '7')).toBe(7);
    expect(customValueToSave(true, 'false')).toBe(false);
    expect(customValueToSave(3, 'many')).toBe('many');
    expect(customValueToSave(true, 'yes')).toBe('yes');
  });

  it('a text field and a new field stay text, whatever they look like', () => {
    expect(customValueToSave('a', '12')).toBe('12');
    expect(customValueToSave(undefined, 'true')).toBe('true');
    expect(customValueToSave(null, '')).toBe('');
  });
});
