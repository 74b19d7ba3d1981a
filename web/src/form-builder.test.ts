/** The dashboard's form builder model (web/src/form-builder.ts): what it offers is what the server takes (D20). */
import { describe, expect, it } from 'vitest';
import { formFields } from '../../src/domain/forms/form.ts';
import { addableFields, addField, customKeyProblem, defaultLabel, fieldTitle, moveField, newFields, removeField, updateField } from './form-builder.ts';

describe('form builder model (D20)', () => {
  it('starts with the address, required, and every form it can build is one the server accepts', () => {
    let fields = newFields();
    expect(fields).toEqual([{ name: 'email', label: 'E-mail', required: true }]);
    for (const { value } of addableFields(fields, ['company', 'plan'])) fields = addField(fields, value);
    expect(fields.map((f) => f.name)).toEqual(['email', 'first_name', 'last_name', 'custom_fields.company', 'custom_fields.plan']);
    expect(() => formFields(fields)).not.toThrow();
    expect(formFields(fields)).toEqual(fields);
  });

  it('offers the unused standard fields, then the known custom fields by key; nothing past 20', () => {
    expect(addableFields(newFields(), ['zeta', 'alpha'])).toEqual([
      { value: 'first_name', label: 'First name' },
      { value: 'last_name', label: 'Last name' },
      { value: 'custom_fields.alpha', label: 'Custom field alpha' },
      { value: 'custom_fields.zeta', label: 'Custom field zeta' },
    ]);
    let fields = newFields();
    for (let i = 0; i < 25; i++) fields = addField(fields, `custom_fields.k${i}`);
    expect(fields).toHaveLength(20);
    expect(addableFields(fields, ['more'])).toEqual([]);
    expect(customKeyProblem('more', fields)).toMatch(/at most 20/);
  });

  it('labels a custom field from its key', () => {
    expect(defaultLabel('custom_fields.company_size')).toBe('Company size');
    expect(fieldTitle('custom_fields.company_size')).toBe('Custom field company_size');
    expect(defaultLabel('last_name')).toBe('Last name');
  });

  it("a new custom key follows D11's rule and is not asked twice", () => {
    const fields = addField(newFields(), 'custom_fields.plan');
    expect(customKeyProblem('plan', fields)).toMatch(/already/);
    for (const bad of ['1st', 'my-key', 'a.b', '', `a${'b'.repeat(64)}`]) expect(customKeyProblem(bad, fields), bad).toMatch(/starts with a letter/);
    expect(customKeyProblem('company_size', fields)).toBeNull();
  });

  it('moves fields within the list, keeps the address and its required flag', () => {
    const fields = addField(addField(newFields(), 'first_name'), 'last_name');
    expect(moveField(fields, 2, -1).map((f) => f.name)).toEqual(['email', 'last_name', 'first_name']);
    expect(moveField(fields, 0, -1)).toBe(fields);
    expect(moveField(fields, 2, 1)).toBe(fields);
    expect(removeField(fields, 0)).toBe(fields);
    expect(removeField(fields, 1).map((f) => f.name)).toEqual(['email', 'last_name']);
    expect(updateField(fields, 0, { required: false, label: 'Your e-mail' })[0]).toEqual({ name: 'email', label: 'Your e-mail', required: true });
    expect(updateField(fields, 1, { required: true })[1]).toEqual({ name: 'first_name', label: 'First name', required: true });
  });
});
