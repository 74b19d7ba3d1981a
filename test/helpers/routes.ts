/**
 * The endpoints a key protects, read from the served OpenAPI document, and valid request bodies
 * built from their documented schemas. The suites that hold every endpoint to a rule (auth,
 * isolation, errors) enumerate them from here, so a new route is covered as soon as it is documented.
 */
import type { TestServer } from './server.ts';

export interface Route {
  method: string;
  path: string;
  op: any;
}

const PUBLIC_PATHS = new Set(['/health', '/ready', '/api/v1/openapi.json']);
/** Dashboard sign-in (issue 6): a session cookie, never a key; test/dashboard holds its rules. */
export const isDashboardSignIn = (path: string) => path.startsWith('/api/v1/auth/');

/**
 * The /api/v1/auth/ routes that need no session: signing in or up, D24.4's password reset, D24.3's
 * invitation link and D24.7's single sign-on.
 * Every other documented route under /api/v1/auth/ acts on the signed-in person (D24.5, D24.6,
 * /me, /logout): a session only, and an API key is 401 there (test/http/auth.test.ts holds them to it).
 */
export const SIGN_IN_ROUTES = [
  'GET /api/v1/auth/signup',
  // Issue 34: 200 signed in or not (the dashboard's first request).
  'GET /api/v1/auth/session',
  'POST /api/v1/auth/signup',
  'POST /api/v1/auth/signup/confirm',
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/login/totp',
  'POST /api/v1/auth/password-reset',
  'POST /api/v1/auth/password-reset/confirm',
  'POST /api/v1/auth/invitations/accept',
  'GET /api/v1/auth/oidc/start',
  'GET /api/v1/auth/oidc/callback',
];

/** The documented routes under /api/v1/auth/ that need a dashboard session (all but SIGN_IN_ROUTES). */
export function sessionOnlyRoutes(doc: any): Route[] {
  return Object.entries<any>(doc?.paths ?? {})
    .filter(([path]) => isDashboardSignIn(path))
    .flatMap(([path, ops]) => Object.entries<any>(ops).filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).map(([m, op]) => ({ method: m.toUpperCase(), path, op })))
    .filter((r) => !SIGN_IN_ROUTES.includes(label(r)));
}

export const label = (r: Route) => `${r.method} ${r.path}`;

/** Every route the route table has today; the document must hold at least these. */
export const KNOWN_ROUTES = [
  'POST /api/v1/contacts',
  'GET /api/v1/contacts',
  'GET /api/v1/contacts/{email}',
  'PUT /api/v1/contacts/{email}',
  'DELETE /api/v1/contacts/{email}',
  'GET /api/v1/contacts/{email}/timeline',
  'POST /api/v1/lists',
  'GET /api/v1/lists',
  'GET /api/v1/lists/{id}',
  'PUT /api/v1/lists/{id}',
  'DELETE /api/v1/lists/{id}',
  'POST /api/v1/lists/{id}/contacts',
  'GET /api/v1/lists/{id}/contacts',
  'DELETE /api/v1/lists/{id}/contacts/{email}',
  'POST /api/v1/campaigns',
  'GET /api/v1/campaigns',
  'GET /api/v1/campaigns/{id}',
  'PUT /api/v1/campaigns/{id}',
  'DELETE /api/v1/campaigns/{id}',
  'GET /api/v1/campaigns/{id}/statistics',
  'POST /api/v1/campaigns/{id}/send',
  'POST /api/v1/campaigns/{id}/schedule',
  'POST /api/v1/campaigns/{id}/unschedule',
  'POST /api/v1/campaigns/{id}/test',
  // issue 34
  'POST /api/v1/campaigns/{id}/pause',
  'POST /api/v1/campaigns/{id}/resume',
  'POST /api/v1/campaigns/{id}/cancel',
  'GET /api/v1/api-keys',
  'POST /api/v1/api-keys',
  'GET /api/v1/api-keys/summary',
  'GET /api/v1/api-keys/{id}',
  'PUT /api/v1/api-keys/{id}',
  'DELETE /api/v1/api-keys/{id}',
  'POST /api/v1/api-keys/{id}/deactivate',
  'POST /api/v1/api-keys/{id}/activate',
  'POST /api/v1/api-keys/{id}/regenerate',
  'POST /api/v1/api-keys/{id}/revoke',
  'GET /api/v1/dev/inbox',
  'GET /api/v1/audit-log',
  'GET /api/v1/members',
  'PUT /api/v1/members/{id}',
  'DELETE /api/v1/members/{id}',
  'POST /api/v1/invitations',
  'GET /api/v1/invitations',
  'DELETE /api/v1/invitations/{id}',
  'POST /api/v1/invitations/{id}/resend',
  'GET /api/v1/account',
  'PUT /api/v1/account',
];

/** `describe.each` / `it.each` rows named by the route's label. */
export const cases = (list: Route[]) => list.map((r) => [label(r), r] as const);

/** D7: the NOT_FOUND code of each resource collection. */
export const NOT_FOUND_CODES: Record<string, string> = {
  contacts: 'CONTACT_NOT_FOUND',
  lists: 'LIST_NOT_FOUND',
  campaigns: 'CAMPAIGN_NOT_FOUND',
  'api-keys': 'API_KEY_NOT_FOUND',
  automations: 'AUTOMATION_NOT_FOUND',
  webhooks: 'WEBHOOK_NOT_FOUND',
  segments: 'SEGMENT_NOT_FOUND',
  suppressions: 'SUPPRESSION_NOT_FOUND',
  domains: 'DOMAIN_NOT_FOUND',
  forms: 'FORM_NOT_FOUND',
  media: 'MEDIA_NOT_FOUND',
  messages: 'MESSAGE_NOT_FOUND',
  // D24.5: one's own sessions (DELETE /api/v1/auth/sessions/{session_id})
  sessions: 'SESSION_NOT_FOUND',
  // D24.2, D24.3
  members: 'MEMBER_NOT_FOUND',
  invitations: 'INVITATION_NOT_FOUND',

  templates: 'TEMPLATE_NOT_FOUND',
};

/** A future time in D1's form, for scheduled_at and expires_at. */
export const future = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 19);

/** What a built body puts in string fields: an address where the field's name says e-mail, else text. */
export interface SampleStrings {
  email(): string;
  text(): string;
}

export interface DocumentedApi {
  /** the served OpenAPI document */
  doc: any;
  /** every documented endpoint that needs a key */
  routes: Route[];
  /** the schema a `$ref` points at, else the schema itself */
  resolve(schema: any): any;
  /** the route's JSON request body schema (resolved), or undefined */
  bodySchema(r: Route): any;
  /** `exampleOf(schema, name?)`: the schema's required fields with plausible values */
  exampleBuilder(strings: SampleStrings): (schema: any, name?: string) => unknown;
}

export async function documentedApi(server: TestServer): Promise<DocumentedApi> {
  const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
  const routes: Route[] = Object.entries<any>(doc?.paths ?? {})
    .filter(([path]) => !PUBLIC_PATHS.has(path) && !path.startsWith('/docs') && !isDashboardSignIn(path))
    .flatMap(([path, ops]) =>
      Object.entries<any>(ops)
        // `security: []` marks a public route (tracking and unsubscribe links, D16): no key involved.
        .filter(([m, op]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m) && !(Array.isArray(op.security) && op.security.length === 0))
        .map(([m, op]) => ({ method: m.toUpperCase(), path, op })),
    );

  const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)] : schema);
  const bodySchema = (r: Route) => resolve(r.op.requestBody?.content?.['application/json']?.schema);

  function exampleBuilder(strings: SampleStrings) {
    /** `within`: the named schemas being built around this one, so a recursive one (D18's SegmentFilter) ends. */
    function exampleOf(schema: any, name = '', within: string[] = []): unknown {
      const ref: string | undefined = schema?.$ref;
      const recursing = ref !== undefined && within.includes(ref);
      if (ref && !recursing) within = [...within, ref];
      schema = resolve(schema);
      const all = schema.anyOf ?? schema.oneOf;
      // Inside itself, a recursive schema takes a branch that does not name it again.
      const options = recursing ? all?.filter((o: any) => !JSON.stringify(o).includes(`"${ref}"`)) : all;
      if (options) return exampleOf(options.find((o: any) => o.type !== 'null') ?? options[0], name, within);
      if ('const' in schema) return schema.const;
      if (schema.enum) return schema.enum[0];
      switch (schema.type) {
        case 'object':
          return Object.fromEntries((schema.required ?? []).map((k: string) => [k, exampleOf(schema.properties?.[k] ?? {}, k, within)]));
        case 'array':
          return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => exampleOf(schema.items ?? {}, name, within));
        case 'integer':
        case 'number':
          return Math.max(1, schema.minimum ?? 1);
        case 'boolean':
          return true;
        default:
          if (/_at$/.test(name)) return future();
          return /email/i.test(name) ? strings.email() : strings.text();
      }
    }
    return exampleOf;
  }

  return { doc, routes, resolve, bodySchema, exampleBuilder };
}
