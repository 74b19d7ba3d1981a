/**
 * Issue 15: a schema failure in one plain sentence that names the field and says what it accepts
 * (`first_name must be a string of at most 255 characters or null`), instead of ajv's
 * `body/first_name must be string, body/first_name must be null, ... must match a schema in anyOf`.
 * Pure: it reads the errors ajv reports with `verbose` (each error's schema is kept).
 */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

type Schema = Record<string, unknown>;

/** Patterns whose meaning reads better in words than as a regular expression. */
const PATTERN_WORDS: Record<string, string> = {
  '^[1-9][0-9]*$': 'a positive integer (digits only, no leading zero)',
  '^[A-Za-z][A-Za-z0-9_]{0,63}$': 'a name of 1-64 letters, digits or _ that starts with a letter',
  '^([01][0-9]|2[0-3]):[0-5][0-9]$': 'a time HH:MM from 00:00 to 23:59',
};

const CONTEXT_NAMES: Record<string, string> = { body: 'the body', querystring: 'the query string', params: 'the path', headers: 'the headers' };

/** `/steps/0/type` -> `steps[0].type`. */
export function fieldName(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((name, part) => (/^\d+$/.test(part) && name ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

const range = (min: unknown, max: unknown, unit: string) => {
  const lo = typeof min === 'number' ? min : undefined;
  const hi = typeof max === 'number' && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  if (lo !== undefined && hi !== undefined) return lo === hi ? ` of exactly ${lo} ${unit}` : ` of ${lo}-${hi} ${unit}`;
  if (hi !== undefined) return ` of at most ${hi} ${unit}`;
  if (lo !== undefined && lo > 0) return ` of at least ${lo} ${unit}`;
  return '';
};

const bounds = (min: unknown, max: unknown) => {
  const lo = typeof min === 'number' ? min : undefined;
  const hi = typeof max === 'number' && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  if (lo !== undefined && hi !== undefined) return ` from ${lo} to ${hi}`;
  if (hi !== undefined) return ` of at most ${hi}`;
  if (lo !== undefined) return ` of at least ${lo}`;
  return '';
};

const listOf = (values: unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

/** What a schema accepts, as words: `a string of at most 255 characters`, `an integer from 1 to 100`, `one of A, B`. */
export function describeSchema(schema: Schema | undefined, depth = 0): string {
  if (!schema || depth > 4) return 'a valid value';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.length === 1 ? JSON.stringify(schema.enum[0]) : `one of ${listOf(schema.enum)}`;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    // Literal branches (a TypeBox union of literals) read as one list.
    if (branches.every((b) => 'const' in b)) return `one of ${listOf(branches.map((b) => b.const))}`;
    const words = [...new Set(branches.map((b) => describeSchema(b, depth + 1)))];
    const nullLast = words.filter((w) => w !== 'null').concat(words.includes('null') ? ['null'] : []);
    return nullLast.join(' or ');
  }
  switch (schema.type) {
    case 'string': {
      if (typeof schema.pattern === 'string' && PATTERN_WORDS[schema.pattern]) return PATTERN_WORDS[schema.pattern];
      let words = `a string${range(schema.minLength, schema.maxLength, 'characters')}`;
      if (typeof schema.format === 'string') words += ` in ${schema.format} format`;
      if (typeof schema.pattern === 'string') words += ` matching ${schema.pattern}`;
      return words;
    }
    case 'integer':
      return `an integer${bounds(schema.minimum, schema.maximum)}`;
    case 'number':
      return `a number${bounds(schema.minimum, schema.maximum)}`;
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema.items && typeof schema.items === 'object' ? `, each ${describeSchema(schema.items as Schema, depth + 1)}` : '';
      return `an array${range(schema.minItems, schema.maxItems, 'items')}${items}`;
    }
    case 'object':
      return `an object${range(schema.minProperties, schema.maxProperties, 'keys')}`;
    default:
      return 'a valid value';
  }
}

function nullableObject(error: SchemaError): boolean {
  const branches = error.keyword === 'anyOf' ? (error.parentSchema?.anyOf as Schema[] | undefined) : undefined;
  return branches?.length === 2 && branches.some((b) => b.type === 'object') && branches.some((b) => b.type === 'null');
}

/** The one sentence for a failed request part (`body`, `querystring`, `params`). */
export function validationMessage(errors: readonly SchemaError[], context = 'body'): string {
  // ajv reports a union's failure last, after its branches' own: that last error is about the whole field.
  const error = deepestBranchError(errors, errors.length - 1);
  if (!error) return `${CONTEXT_NAMES[context] ?? context} is not valid`;
  const whole = CONTEXT_NAMES[context] ?? context;
  // An object-or-null field (D23's send_window) whose object fails inside: name the field inside it.
  const inside = nullableObject(error) ? errors.filter((e) => e.instancePath.startsWith(`${error.instancePath}/`) || (e.instancePath === error.instancePath && e.keyword === 'required')) : [];
  if (inside.length > 0) return validationMessage(inside, context);
  switch (error.keyword) {
    case 'required': {
      const name = String(error.params.missingProperty);
      const accepts = (error.parentSchema?.properties as Record<string, Schema> | undefined)?.[name];
      return `${fieldName(error.instancePath, name)} is required${accepts ? `: ${describeSchema(accepts)}` : ''}`;
    }
    case 'additionalProperties':
      return `${fieldName(error.instancePath, String(error.params.additionalProperty))} is not allowed`;
    default: {
      const field = fieldName(error.instancePath) || whole;
      return `${field} must be ${describeSchema(error.parentSchema)}`;
    }
  }
}

/**
 * The error to tell for `errors[at]`: a union's own, unless one of its branches failed inside the
 * value (an object-or-null given an object whose field is out of range): that branch is the one
 * the value was meant for, and its error names the field within (D23's `ab_test.test_percent`
 * rather than "ab_test must be an object or null").
 */
function deepestBranchError(errors: readonly SchemaError[], at: number): SchemaError | undefined {
  const error = errors[at];
  if (!error || (error.keyword !== 'anyOf' && error.keyword !== 'oneOf')) return error;
  for (let i = at - 1; i >= 0; i--) if (errors[i].instancePath.startsWith(error.instancePath + '/')) return deepestBranchError(errors, i);
  return error;
}
