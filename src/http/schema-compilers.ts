import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { ErrorBody, FlatErrorBody } from './schemas/common.ts';

/**
 * The route schemas' compilers, shared by every app this process builds. Compiling them (ajv for
 * requests, fast-json-stringify for responses) was about 230 ms of every boot, and a test file
 * boots a server per suite; the schemas are module constants, so the same schema compiles to the
 * same function once per process. A compiled function keeps no state between calls that another
 * app could see: ajv's `errors` is read synchronously right after the call.
 */

/** The cache key of a schema: its JSON (the same schema may reach Fastify as another object). */
const keyOf = (schema: unknown) => JSON.stringify(schema);

function memoise<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let found = cache.get(key);
  if (found === undefined) {
    found = make();
    cache.set(key, found);
  }
  return found;
}

// `verbose` keeps each error's schema, from which the error handler says what a field accepts (issue 15).
const ajvOptions = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false, verbose: true } as const;
let validators: { body: Ajv.default; text: Ajv.default; compiled: Map<string, ReturnType<Ajv.default['compile']>> } | null = null;

/**
 * Bodies are validated without type coercion (D7: a wrong type is 400); query strings and path
 * parameters arrive as text, so they are coerced. Unknown body fields are dropped (D7: ignored).
 */
export function validatorCompiler() {
  validators ??= {
    body: addFormats.default(new Ajv.default({ ...ajvOptions, coerceTypes: false })),
    text: addFormats.default(new Ajv.default({ ...ajvOptions, coerceTypes: 'array' })),
    compiled: new Map(),
  };
  const { body, text, compiled } = validators;
  for (const ajv of [body, text]) if (!ajv.getSchema('ErrorBody')) ajv.addSchema([ErrorBody, FlatErrorBody]);
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => {
    const ajv = httpPart === 'body' ? body : text;
    return memoise(compiled, `${ajv === body ? 'body' : 'text'}:${keyOf(schema)}`, () => ajv.compile(schema));
  };
}

type SerializerFactory = ReturnType<typeof SerializerSelector>;
// A serializer depends on its schema and the shared schemas only, not on the route's status or media type.
const serializers = new Map<string, ReturnType<ReturnType<SerializerFactory>>>();

/** Fastify's own response-serializer factory, with each compiled serializer kept for the process. */
export function serializerFactory(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const context = keyOf([externalSchemas, options]);
    return (route) => memoise(serializers, `${context}:${keyOf(route.schema)}`, () => compile(route));
  };
}
