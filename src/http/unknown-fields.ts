/**
 * Issue 15: D7 ignores unknown body fields, but a misspelled `frist_name` (or an `email` in a
 * contact's PUT) should not pass unnoticed. This finds the body's fields that the route's schema
 * (in its documented form, so a workflow step or a bulk item is checked against its real shape)
 * does not name. The walk is bounded: nesting depth, nodes visited and names reported.
 */
export const UNKNOWN_FIELD_LIMITS = { depth: 6, nodes: 5000, reported: 20 } as const;

type Schema = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The object branches of a union, merged; null when any of them admits any key (a record, `additionalProperties`). */
function objectShape(schema: Schema): { properties: Record<string, Schema> } | null {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    const shapes = branches.filter((b) => b.type === 'object' || b.properties || b.anyOf || b.oneOf).map(objectShape);
    if (shapes.length === 0 || shapes.includes(null)) return null;
    const properties: Record<string, Schema> = {};
    // A key belongs to the first branch that names it (the discriminated branches share only `type`).
    for (const shape of shapes) for (const [k, v] of Object.entries(shape!.properties)) properties[k] ??= v;
    return { properties };
  }
  if (schema.type !== 'object' && !schema.properties) return null;
  if (schema.patternProperties || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) return null;
  return { properties: (schema.properties ?? {}) as Record<string, Schema> };
}

function itemsOf(schema: Schema): Schema | null {
  if (schema.type === 'array' && isPlainObject(schema.items)) return schema.items;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return branches?.map(itemsOf).find((items) => items) ?? null;
}

/** A body's key is the client's text: shown cut to a readable length. */
const join = (path: string, key: string) => {
  const name = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return path ? `${path}.${name}` : name;
};

/** Paths such as `frist_name`, `trigger.evnt`, `steps[1].secnds`, in body order; at most `reported` + 1 entries. */
export function unknownFields(schema: Schema | undefined, body: unknown): string[] {
  const found: string[] = [];
  let budget: number = UNKNOWN_FIELD_LIMITS.nodes;
  const walk = (node: Schema, value: unknown, path: string, depth: number): void => {
    if (found.length > UNKNOWN_FIELD_LIMITS.reported || depth > UNKNOWN_FIELD_LIMITS.depth || --budget < 0) return;
    if (Array.isArray(value)) {
      const items = itemsOf(node);
      if (items) for (let i = 0; i < value.length && budget > 0; i++) walk(items, value[i], `${path}[${i}]`, depth + 1);
      return;
    }
    if (!isPlainObject(value)) return;
    const shape = objectShape(node);
    if (!shape) return;
    for (const key of Object.keys(value)) {
      const child = Object.hasOwn(shape.properties, key) ? shape.properties[key] : undefined;
      if (child) walk(child, value[key], join(path, key), depth + 1);
      else found.push(join(path, key));
      if (found.length > UNKNOWN_FIELD_LIMITS.reported) return;
    }
  };
  if (schema) walk(schema, body, '', 0);
  return found;
}

/** The response's `warnings` entries for the fields found. */
export function unknownFieldWarnings(fields: string[]): string[] {
  const shown = fields.slice(0, UNKNOWN_FIELD_LIMITS.reported).map((f) => `unknown field "${f}" was ignored`);
  if (fields.length > UNKNOWN_FIELD_LIMITS.reported) shown.push(`more unknown fields were ignored; only the first ${UNKNOWN_FIELD_LIMITS.reported} are named`);
  return shown;
}
