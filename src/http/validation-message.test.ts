import { Type, type TSchema } from '@sinclair/typebox';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { PageQuery } from './schemas/common.ts';
import { CreateContactBody } from './schemas/contacts.ts';
import { IdParams } from './schemas/common.ts';
import { validationMessage, type SchemaError } from './validation-message.ts';

// The app's validator options (src/app.ts): first error only, with each error's schema kept.
const ajv = new Ajv.default({ allErrors: false, strict: false, verbose: true, coerceTypes: false });
function messageFor(schema: TSchema, value: unknown, context = 'body'): string {
  const validate = ajv.compile(schema);
  expect(validate(value)).toBe(false);
  return validationMessage(validate.errors as SchemaError[], context);
}

describe('validationMessage (issue 15: one sentence naming the field and what it accepts)', () => {
  it('a nullable string of the wrong type: names the field, its limit, and null', () => {
    expect(messageFor(CreateContactBody, { email: 'a@example.com', first_name: 5 })).toBe('first_name must be a string of at most 255 characters or null');
  });

  it('a string over its limit reads the same way', () => {
    expect(messageFor(CreateContactBody, { email: 'a@example.com', first_name: 'x'.repeat(256) })).toBe('first_name must be a string of at most 255 characters or null');
  });

  it('a missing field says it is required and what it takes', () => {
    expect(messageFor(Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }), {})).toBe('name is required: a string of 1-255 characters');
  });

  it('nested paths read as fields: steps[1].seconds, custom_fields.plan', () => {
    const schema = Type.Object({ steps: Type.Array(Type.Object({ seconds: Type.Integer({ minimum: 1, maximum: 60 }) })) });
    expect(messageFor(schema, { steps: [{ seconds: 1 }, { seconds: 0 }] })).toBe('steps[1].seconds must be an integer from 1 to 60');
  });

  it('an object-or-null given an object names the field inside it (D23: ab_test.test_percent), not the union', () => {
    const schema = Type.Object({ ab_test: Type.Union([Type.Object({ test_percent: Type.Integer({ minimum: 2, maximum: 50 }) }), Type.Null()]) });
    expect(messageFor(schema, { ab_test: { test_percent: 51 } })).toBe('ab_test.test_percent must be an integer from 2 to 50');
    expect(messageFor(schema, { ab_test: 5 })).toBe('ab_test must be an object or null');
  });

  it('a union of literals lists its values; an enum too', () => {
    expect(messageFor(Type.Object({ status: Type.Union([Type.Literal('A'), Type.Literal('B')]) }), { status: 'C' })).toBe('status must be one of A, B');
    expect(messageFor(Type.Object({ p: Type.Unsafe({ type: 'string', enum: ['x.read', 'x.write'] }) }), { p: 'y' })).toBe('p must be one of x.read, x.write');
  });

  it('query and path parameters: size range, D2 ids', () => {
    expect(messageFor(Type.Object(PageQuery), { page: 0, size: 500 }, 'querystring')).toBe('size must be an integer from 1 to 100');
    expect(messageFor(Type.Object(PageQuery), { page: -1, size: 5 }, 'querystring')).toBe('page must be an integer of at least 0');
    expect(messageFor(IdParams, { id: '01' }, 'params')).toBe('id must be a positive integer (digits only, no leading zero)');
  });

  it('arrays say how many items and what each is', () => {
    expect(messageFor(Type.Object({ emails: Type.Array(Type.String(), { minItems: 1, maxItems: 10 }) }), { emails: [] })).toBe('emails must be an array of 1-10 items, each a string');
    expect(messageFor(Type.Object({ emails: Type.Array(Type.String()) }), { emails: ['a', 2] })).toBe('emails[1] must be a string');
  });

  it('a body of the wrong kind names the body; booleans read as true or false', () => {
    expect(messageFor(Type.Object({ a: Type.Boolean() }), [])).toBe('the body must be an object');
    expect(messageFor(Type.Object({ a: Type.Boolean() }), { a: 'yes' })).toBe('a must be true or false');
  });

  it('never the old ajv phrasing', () => {
    const message = messageFor(CreateContactBody, { email: 'a@example.com', last_name: [] });
    expect(message).not.toMatch(/body\/|must match a schema in anyOf|must be string/);
  });
});
