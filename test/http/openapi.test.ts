/**
 * The OpenAPI 3.1 document (public, like GET /docs): it covers every route of the route table,
 * both auth schemes (D8) and the error bodies (D7), and `redocly lint` reports no errors.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { isDashboardSignIn } from '../helpers/routes.ts';
import { ERROR_CODES } from '../../src/domain/shared/errors.ts';
import { SESSION_COOKIE } from '../../src/http/session-auth.ts';
import { PERMISSIONS } from '../../src/domain/api-keys/permissions.ts';
import { STEP_TYPES, TRIGGER_TYPES } from '../../src/domain/automations/automation-definition.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/outbound-webhooks/enqueue.ts';

const WRITE_SECURITY = [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { DashboardSession: [], CsrfToken: [] }];
const READ_SECURITY = [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { DashboardSession: [] }];

const root = fileURLToPath(new URL('../..', import.meta.url));
const redoclyBin = join(root, 'node_modules', '.bin', 'redocly');

/** Routes known to need no key (probes and the docs); every API route besides the document needs one (D8). */
const PUBLIC = ['GET /health', 'GET /ready', 'GET /api/v1/openapi.json'];
/** The two API families of D7: reference (`/api/v1`) and integration (`/v1`). */
const isApiPath = (path: string) => path.startsWith('/api/v1/') || path.startsWith('/v1/');
/** Endpoints of the specification's reference section: they must be in the table and the document. */
const SPEC_ROUTES = [
  'POST /api/v1/lists',
  'GET /api/v1/lists',
  'POST /api/v1/contacts',
  'GET /api/v1/contacts/{email}',
  'PUT /api/v1/contacts/{email}',
  'GET /api/v1/campaigns',
  'GET /api/v1/campaigns/{id}',
  'GET /api/v1/campaigns/{id}/statistics',
];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

type Operation = { operationId?: string; security?: unknown[]; responses: Record<string, { description: string; content?: Record<string, { schema: any }> }> };
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, any> };
  security: unknown[];
};

/** The route table in src/http/routes.ts, as `METHOD /openapi/{style}/path` entries. */
function routeTable(): { method: string; url: string; key: string }[] {
  const source = readFileSync(join(root, 'src', 'http', 'routes.ts'), 'utf8');
  const row = /\[\s*(['"`])(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\1\s*,\s*(['"`])(\/[^'"`]*)\3\s*,/g;
  return [...source.matchAll(row)].map((m) => ({ method: m[2], url: m[4], key: `${m[2]} ${m[4].replace(/:(\w+)/g, '{$1}')}` }));
}

function operations(doc: Doc): { key: string; path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, op })),
  );
}

/**
 * Runs the project's own redocly binary on a file, offline: telemetry and the update check are
 * switched off, and a preload records every outbound TCP connection so the test can prove none.
 */
function redoclyLint(dir: string, file: string): Promise<{ code: number; stdout: string; stderr: string; connections: string[] }> {
  const preload = join(dir, 'no-network.cjs');
  const connectionLog = join(dir, 'connections.log');
  writeFileSync(
    preload,
    `const net = require('node:net'); const fs = require('node:fs');
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const o = args[0];
  if (!(o && typeof o === 'object' && o.path) && typeof o !== 'string') {
    fs.appendFileSync(${JSON.stringify(connectionLog)}, JSON.stringify(typeof o === 'object' ? { host: o.host, port: o.port } : args.slice(0, 2)) + '\\n');
  }
  return connect.apply(this, args);
};
`,
  );
  const env = {
    ...process.env,
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
    NODE_OPTIONS: `--require "${preload}"`,
  };
  return new Promise((resolve) => {
    // Run from the project root so a project redocly config, if any, applies as with `npx @redocly/cli lint`.
    execFile(process.execPath, [redoclyBin, 'lint', file, '--format=json'], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      const connections = existsSync(connectionLog) ? readFileSync(connectionLog, 'utf8').split('\n').filter(Boolean) : [];
      resolve({ code, stdout, stderr, connections });
    });
  });
}

let server: TestServer;
let doc: Doc;
let tmp: string;
beforeAll(async () => {
  server = await startTestServer();
  tmp = mkdtempSync(join(tmpdir(), 'sendwell-openapi-'));
  const res = await server.request('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('GET /api/v1/openapi.json', () => {
  it('is public JSON and declares OpenAPI 3.1', async () => {
    const res = await server.request('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.openapi).toMatch(/^3\.1\.\d+$/);
    expect(res.body.info.title).toBe('Sendwell API');
    expect(typeof res.body.info.version).toBe('string');
  });

  it('passes `redocly lint` with zero errors, without touching the network', async () => {
    const file = join(tmp, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const result = await redoclyLint(tmp, file);
    expect(result.connections, 'redocly tried to open network connections').toEqual([]);
    let report: { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    try {
      report = JSON.parse(result.stdout);
    } catch {
      throw new Error(`redocly printed no JSON report (exit ${result.code}): ${result.stderr.slice(-2000)}`);
    }
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(result.code).toBe(0);
    // Every operation carries an operationId (derived from method and path), so that warning is gone.
    expect(report.problems.filter((p) => p.ruleId === 'operation-operationId')).toEqual([]);
  });

  it('documents every route of the route table with its method, and nothing else', () => {
    const table = routeTable();
    // The parsed table is the real one: each entry is a route the app answers.
    for (const { method, url } of table) expect(server.app.hasRoute({ method, url }), `${method} ${url}`).toBe(true);
    const tableKeys = table.map((r) => r.key);
    expect(tableKeys).toEqual(expect.arrayContaining([...SPEC_ROUTES, ...PUBLIC]));
    expect(new Set(tableKeys).size).toBe(tableKeys.length);

    const documented = operations(doc).map((o) => o.key);
    const missing = tableKeys.filter((k) => !documented.includes(k));
    // Fastify answers HEAD for every GET; the document lists it where clients use it (D26.10: tracked links).
    const answeredHead = (k: string) => k.startsWith('HEAD ') && tableKeys.includes(`GET ${k.slice(5)}`);
    const extra = documented.filter((k) => !tableKeys.includes(k) && !answeredHead(k));
    expect(missing).toEqual([]);
    expect(extra).toEqual([]);
  });

  it('gives every operation a unique operationId, a summary and tags', () => {
    const ops = operations(doc);
    const ids = ops.map((o) => o.op.operationId);
    for (const { key, op } of ops) {
      expect(op.operationId, key).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect((op as any).summary, key).toEqual(expect.any(String));
      expect((op as any).tags, key).toEqual([expect.any(String)]);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/v1/contacts/{email}'].get.operationId).toBe('getContactsByEmail');
    expect(doc.paths['/api/v1/lists/{id}/contacts'].post.operationId).toBe('postListsByIdContacts');
  });
});

describe('authentication in the document (D8)', () => {
  it('declares the key schemes, X-API-Key header and Bearer, and the dashboard session with its CSRF header (D17.8)', () => {
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      BearerAuth: { type: 'http', scheme: 'bearer' },
      DashboardSession: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: expect.any(String) },
      CsrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: expect.any(String) },
    });
    // Any one suffices: alternatives, not one requirement holding all; a session's writes need the cookie and the token together.
    expect(doc.security).toEqual(WRITE_SECURITY);
  });

  it('marks as keyless exactly the routes the server answers without a key', async () => {
    for (const { key, path, method, op } of operations(doc)) {
      // Dashboard sign-in is keyless (`security: []`) but answers 401 without a session cookie.
      if (isDashboardSignIn(path)) continue;
      const url = path.replace(/\{email\}/g, 'someone%40example.com').replace(/\{\w+\}/g, '1');
      const res = await server.request(method.toUpperCase(), url);
      // Provider webhooks need no API key; they answer 401 without their own token or signature.
      const keyless = res.status !== 401 || path.startsWith('/webhooks/');
      // A keyed write inherits the document-wide ApiKeyHeader | BearerAuth | session + CSRF token; a keyed read
      // needs no CSRF token (D17.8); a keyless one says `security: []`.
      expect(op.security, key).toEqual(keyless ? [] : method === 'get' ? READ_SECURITY : undefined);
      if (PUBLIC.includes(key)) expect(res.status, key).toBe(200);
      else if (isApiPath(path)) expect(res.status, key).toBe(401);
    }
  });
});

describe('error bodies in the document (D7)', () => {
  it('defines the reference and the integration error envelopes', () => {
    const { ErrorBody, FlatErrorBody } = doc.components.schemas;
    expect(ErrorBody.type).toBe('object');
    expect(ErrorBody.required).toEqual(['success', 'error']);
    expect(ErrorBody.properties.success).toEqual({ type: 'boolean', enum: [false] });
    expect(ErrorBody.properties.error.required).toEqual(['code', 'message']);
    // D17.8: the codes are an enum, the domain's one list.
    expect(ErrorBody.properties.error.properties).toEqual({ code: { type: 'string', enum: [...ERROR_CODES] }, message: { type: 'string' } });
    // D10: the 429 details sit beside `error`.
    expect(Object.keys(ErrorBody.properties)).toEqual(expect.arrayContaining(['retryAfter', 'limit', 'remaining', 'resetAt']));

    expect(FlatErrorBody.required).toEqual(['success', 'error', 'code', 'message']);
    expect(FlatErrorBody.properties.error.type).toBe('string');
    expect(FlatErrorBody.properties.code).toEqual({ type: 'string', enum: [...ERROR_CODES] });
  });

  it('every error response of every API operation references the error schema of its family', () => {
    for (const { key, path, op } of operations(doc)) {
      if (!isApiPath(path)) continue; // probes such as /ready answer their own {status} body
      const expected = path.startsWith('/v1/') ? '#/components/schemas/FlatErrorBody' : '#/components/schemas/ErrorBody';
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.description, `${key} ${status}`).not.toBe('');
        expect(response.content?.['application/json']?.schema, `${key} ${status}`).toEqual({ $ref: expected });
      }
    }
  });

  it('documents 400, 401, 403, 429 and 500 on every keyed route, and 404 where the path names a resource', () => {
    for (const { key, path, op } of operations(doc)) {
      if (op.security !== undefined) continue; // keyless
      const statuses = Object.keys(op.responses);
      // D14: POST /v1/events answers 202; every other success is 200 (D4).
      const success = key === 'POST /v1/events' ? '202' : '200';
      expect(statuses, key).toEqual(expect.arrayContaining([success, '400', '401', '403', '429', '500']));
      if (path.includes('{')) expect(statuses, key).toContain('404'); // D2 / D3: a missing or foreign id is 404
    }
  });

  it('the error schema describes the bodies the server really sends', async () => {
    const ajv = new Ajv.default({ strict: false });
    const validate = ajv.compile(doc.components.schemas.ErrorBody);
    const noKey = await server.request('GET', '/api/v1/contacts');
    expect(noKey.status).toBe(401);
    expect(validate(noKey.body), JSON.stringify(validate.errors)).toBe(true);
    expect(noKey.body.error.code).toBe('UNAUTHORIZED');

    const { key } = await server.createAccountWithKey(['lists.read']);
    const denied = await server.request('GET', '/api/v1/contacts', { key });
    expect(denied.status).toBe(403);
    expect(validate(denied.body), JSON.stringify(validate.errors)).toBe(true);
    expect(denied.body.error.code).toBe('PERMISSION_DENIED');

    const full = await server.createAccountWithKey();
    const missing = await server.request('GET', '/api/v1/contacts/nobody%40example.com', { key: full.key });
    expect(missing.status).toBe(404);
    expect(validate(missing.body), JSON.stringify(validate.errors)).toBe(true);
    expect(missing.body.error.code).toBe('CONTACT_NOT_FOUND');
  });
});

describe('GET /docs', () => {
  it('answers 200 HTML without a key, and the document it loads is public too', async () => {
    const res = await server.request('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui');

    const json = await server.request('GET', '/docs/json');
    expect(json.status).toBe(200);
    expect(json.body).toEqual(doc);
  });
});

/** Walks a document's schemas (components and operations), calling `visit` on every named property. */
function eachProperty(node: unknown, visit: (name: string, schema: any, at: string) => void, at = '#', depth = 0): void {
  if (depth > 40 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((n, i) => eachProperty(n, visit, `${at}/${i}`, depth + 1));
  const obj = node as Record<string, any>;
  if (obj.properties && typeof obj.properties === 'object') for (const [name, schema] of Object.entries(obj.properties)) visit(name, schema, `${at}/properties/${name}`);
  for (const [k, v] of Object.entries(obj)) eachProperty(v, visit, `${at}/${k}`, depth + 1);
}
const resolve = (schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
const enumerated = (schema: any): boolean => {
  const s = resolve(schema);
  if (!s) return false;
  if (Array.isArray(s.enum) || 'const' in s) return true;
  const branches = s.anyOf ?? s.oneOf;
  return Array.isArray(branches) && branches.every((b: any) => enumerated(b) || b.type === 'null');
};

describe('D17.8: the contract, complete', () => {
  it('every operation states its permissions in x-permissions and in its description, from the route table', () => {
    for (const { key, op } of operations(doc)) {
      const permissions = (op as any)['x-permissions'];
      expect(permissions, key).toEqual(expect.any(Array));
      for (const p of permissions) expect(PERMISSIONS, key).toContain(p);
      expect((op as any).description, key).toMatch(/Permissions: /);
      for (const p of permissions) expect((op as any).description, key).toContain(`\`${p}\``);
      if (op.security?.length === 0) expect(permissions, key).toEqual([]);
      else if (isApiPath(key.split(' ')[1])) expect(permissions.length, key).toBeGreaterThan(0);
    }
    expect((doc.paths['/api/v1/contacts'].get as any)['x-permissions']).toEqual(['contacts.read']);
    expect((doc.paths['/api/v1/campaigns/{id}/send'].post as any)['x-permissions']).toEqual(['campaigns.send']);
    expect((doc.paths['/api/v1/api-keys'].get as any)['x-permissions']).toEqual(['*']);
    expect((doc.paths['/health'].get as any)['x-permissions']).toEqual([]);
  });

  it('every operation with a JSON body documents 413 and 415; every body-taking operation 413', async () => {
    let jsonBodies = 0;
    for (const { key, path, method, op } of operations(doc)) {
      const content = (op as any).requestBody?.content;
      // Providers' webhooks read their body as text whatever its content type (signatures cover the bytes): never 415.
      if (content?.['application/json'] && !path.startsWith('/webhooks/')) {
        jsonBodies++;
        expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(['413', '415']));
      }
      if (['post', 'put', 'patch'].includes(method)) expect(Object.keys(op.responses), key).toContain('413');
    }
    expect(jsonBodies).toBeGreaterThanOrEqual(20);
    // ...and the server does answer them.
    const { key } = await server.createAccountWithKey();
    const notJson = await server.request('POST', '/api/v1/lists', { key, rawBody: 'name=L', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(notJson.status).toBe(415);
    expect(notJson.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('page and size are optional, with their defaults (0 and 20)', () => {
    let paged = 0;
    for (const { key, op } of operations(doc)) {
      for (const p of ((op as any).parameters ?? []) as any[]) {
        if (p.in !== 'query' || !['page', 'size'].includes(p.name)) continue;
        paged++;
        expect(p.required, `${key} ${p.name}`).toBe(false);
        expect(p.schema.default, `${key} ${p.name}`).toBe(p.name === 'page' ? 0 : 20);
      }
    }
    expect(paged).toBeGreaterThanOrEqual(16);
  });

  it('path ids are integers in the document, while the server still refuses 01, 1e3 and 1.5 (D2)', async () => {
    let ids = 0;
    for (const { key, op } of operations(doc)) {
      for (const p of ((op as any).parameters ?? []) as any[]) {
        if (p.in !== 'path' || p.name !== 'id') continue;
        ids++;
        expect(p.schema, key).toEqual({ type: 'integer', minimum: 1 });
      }
    }
    expect(ids).toBeGreaterThan(30);
    const { key } = await server.createAccountWithKey();
    for (const bad of ['01', '1e3', '1.5', 'abc']) {
      const res = await server.request('GET', `/api/v1/lists/${bad}`, { key });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('the tracking and unsubscribe routes document their real media types, not JSON', () => {
    const open = doc.paths['/t/o/{token}'].get.responses['200'];
    expect(Object.keys(open.content ?? {})).toEqual(['image/gif']);
    const click = doc.paths['/t/c/{token}'].get.responses as any;
    expect(click['200']).toBeUndefined();
    expect(click['302'].content).toBeUndefined();
    expect(click['302'].headers.Location.schema.type).toBe('string');
    expect(Object.keys(doc.paths['/u/{token}'].get.responses['200'].content ?? {})).toEqual(['text/html']);
    const unsubscribe = doc.paths['/u/{token}'].post.responses['200'];
    expect(unsubscribe.content?.['application/json']).toBeUndefined();
    for (const path of ['/t/o/{token}', '/t/c/{token}', '/u/{token}']) {
      for (const [status, response] of Object.entries(doc.paths[path].get.responses)) {
        if (Number(status) >= 400) expect(response.content?.['application/json']?.schema, `${path} ${status}`).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      }
    }
  });

  it('D26.10: the bodies the public routes read, /metrics as text, one-click as text, HEAD on tracked links, the archive\'s 400', () => {
    const bodyTypes = (path: string, method = 'post') => Object.keys((doc.paths[path][method] as any).requestBody?.content ?? {});
    expect(bodyTypes('/u/{token}')).toEqual(['application/x-www-form-urlencoded']);
    expect((doc.paths['/u/{token}'].post as any).requestBody.content['application/x-www-form-urlencoded'].schema.properties['List-Unsubscribe'].enum).toEqual(['One-Click']);
    expect(bodyTypes('/p/{token}')).toEqual(['application/x-www-form-urlencoded']);
    expect((doc.paths['/p/{token}'].post as any).requestBody.content['application/x-www-form-urlencoded'].schema.properties.action.enum).toEqual(['update', 'unsubscribe_all', 'export', 'erase']);
    expect(bodyTypes('/c/{token}')).toEqual(['application/x-www-form-urlencoded']);
    expect(bodyTypes('/webhooks/ses')).toEqual(['text/plain', 'application/json']);
    expect((doc.paths['/webhooks/sendgrid'].post as any).requestBody.content['application/json'].schema.type).toBe('array');
    expect((doc.paths['/webhooks/generic'].post as any).requestBody.content['application/json'].schema.required).toEqual(['events']);

    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content ?? {})).toEqual(['text/plain']);
    expect(Object.keys(doc.paths['/u/{token}'].post.responses['200'].content ?? {})).toEqual(['text/html', 'text/plain']);
    expect(Object.keys(doc.paths['/u/{token}'].get.responses['404'].content ?? {})).toEqual(['application/json', 'text/html']);
    expect(doc.paths['/archive/{slug}/{id}'].get.responses['400'].content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    for (const path of ['/t/o/{token}', '/t/c/{token}']) {
      expect(Object.keys(doc.paths[path].head?.responses ?? {}), `HEAD ${path}`).toEqual(Object.keys(doc.paths[path].get.responses));
    }
  });

  it('statuses, permissions, plans, event types and error codes are enums, not free strings', () => {
    const free: string[] = [];
    const names = new Set(['status', 'code', 'plan', 'trigger_type', 'event_type', 'current_step_type', 'outcome']);
    eachProperty({ components: doc.components, paths: doc.paths }, (name, schema, at) => {
      // D24.6's one-time codes are six digits (a pattern), not one of a list of codes.
      const oneTimeCode = name === 'code' && typeof resolve(schema)?.pattern === 'string';
      if (names.has(name) && resolve(schema)?.type !== 'integer' && !enumerated(schema) && !oneTimeCode) free.push(at);
    });
    expect(free).toEqual([]);
    const schemas = doc.components.schemas;
    expect(schemas.ApiKey.properties.permissions.items.enum).toEqual([...PERMISSIONS]);
    expect(schemas.WebhookEndpoint.properties.event_types.items.enum).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect((doc.paths['/api/v1/webhooks'].post as any).requestBody).toBeDefined();
    const webhookBody = (doc.paths['/api/v1/webhooks'].post as any).requestBody.content['application/json'].schema;
    expect(webhookBody.properties.event_types.items.enum).toEqual([...WEBHOOK_EVENT_TYPES]);
    const keyBody = (doc.paths['/api/v1/api-keys'].post as any).requestBody.content['application/json'].schema;
    expect(keyBody.properties.permissions.items.enum).toEqual([...PERMISSIONS]);
    expect(enumerated(schemas.Contact.properties.status)).toBe(true);
    expect(enumerated(schemas.Campaign.properties.status)).toBe(true);
  });

  it('automation triggers and steps are one schema per type, selected by `type`', () => {
    const body = (doc.paths['/api/v1/automations'].post as any).requestBody.content['application/json'].schema;
    for (const [schema, types] of [
      [body.properties.trigger, TRIGGER_TYPES],
      [body.properties.steps.items, STEP_TYPES],
    ] as const) {
      expect(schema.discriminator.propertyName).toBe('type');
      expect(Object.keys(schema.discriminator.mapping)).toEqual([...types]);
      expect(schema.oneOf).toHaveLength(types.length);
      for (const [type, ref] of Object.entries<string>(schema.discriminator.mapping)) {
        const variant = resolve({ $ref: ref });
        expect(variant.properties.type, type).toEqual({ type: 'string', enum: [type] });
        expect(variant.required, type).toContain('type');
      }
    }
    expect(resolve({ $ref: body.properties.steps.items.discriminator.mapping.WAIT }).properties.seconds.type).toBe('integer');
    expect(resolve({ $ref: body.properties.steps.items.discriminator.mapping.SEND_EMAIL }).required).toEqual(expect.arrayContaining(['subject', 'html', 'from_email']));
  });

  it('bulk import items are typed contacts, with the consent an import carries (D26.3)', () => {
    const body = (doc.paths['/v1/contacts/bulk'].post as any).requestBody.content['application/json'].schema;
    const item = resolve(body.properties.contacts.items);
    expect(item.type).toBe('object');
    // Issue 30 item 12: email is not required of an item (see below).
    expect(item.required).toBeUndefined();
    expect(Object.keys(item.properties)).toEqual(['email', 'name', 'firstName', 'lastName', 'phone', 'tags', 'customFields', 'status', 'lists', 'consentAt', 'consentIp']);
  });

  it('success envelopes document the optional warnings list', () => {
    const ok = (doc.paths['/api/v1/contacts'].post.responses['200'].content as any)['application/json'].schema;
    expect(ok.properties.warnings.type).toBe('array');
    expect(ok.required).not.toContain('warnings');
    const flat = (doc.paths['/v1/contacts/bulk'].post.responses['200'].content as any)['application/json'].schema;
    expect(flat.properties.warnings.type).toBe('array');
  });
});

/** The document's components and paths as one schema, so Ajv follows its `#/components/...` references. */
function documentValidator(pointer: string) {
  const ajv = new Ajv.default({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
  return ajv.compile({ $ref: `openapi.json${pointer}` });
}

describe('issue 30 item 12: the document says what the server does', () => {
  const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
  const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

  it('D10: RateLimit-* on every answer of a keyed operation but 401, and Retry-After on every 429, as reusable header objects', () => {
    const headers = (doc.components as any).headers;
    for (const name of [...RATE_LIMIT, 'Retry-After']) {
      expect(headers[name]?.schema?.type, name).toBe('integer');
      expect(headers[name].description, name).toEqual(expect.any(String));
      // Enterprise carries none of them (D10), so none is required.
      expect(headers[name].required, name).toBeUndefined();
    }
    let metered = 0;
    let tooMany = 0;
    for (const { key, op } of operations(doc)) {
      const keyed = op.security === undefined || op.security.length > 0;
      if (keyed) metered++;
      for (const [status, response] of Object.entries(op.responses)) {
        const expected = [...(keyed && status !== '401' ? RATE_LIMIT : []), ...(status === '429' ? ['Retry-After'] : [])];
        const documented = (response as { headers?: Record<string, unknown> }).headers ?? {};
        for (const name of expected) expect(documented[name], `${key} ${status} ${name}`).toEqual(headerRef(name));
        if (!keyed || status === '401') for (const name of RATE_LIMIT) expect(documented[name], `${key} ${status} ${name}`).toBeUndefined();
        if (status === '429') tooMany++;
      }
    }
    expect(metered).toBeGreaterThan(90);
    // The public routes with limits of their own (links, forms, sign-in) say it too.
    expect((doc.paths['/t/o/{token}'].get.responses['429'] as any).headers).toEqual({ 'Retry-After': headerRef('Retry-After') });
    expect(tooMany).toBeGreaterThan(metered);
  });

  it('D10: the headers the document names are the ones a keyed answer carries', async () => {
    const named = Object.keys((doc.components as any).headers ?? {}).filter((name) => name.startsWith('RateLimit-'));
    expect(named).toEqual(RATE_LIMIT);
    const { key } = await server.createAccountWithKey(['*'], 'business');
    for (const res of [await server.request('GET', '/api/v1/lists', { key }), await server.request('GET', '/api/v1/lists/999999', { key })]) {
      for (const name of named) expect(Number(res.headers.get(name)), `${res.status} ${name}`).toBeGreaterThanOrEqual(0);
      expect(res.headers.get('RateLimit-Limit')).toBe('1200');
    }
    const noKey = await server.request('GET', '/api/v1/lists');
    expect(noKey.status).toBe(401);
    for (const name of RATE_LIMIT) expect(noKey.headers.get(name), name).toBeNull();
  });

  it('D14: a bulk item may leave out email in the document, as the server takes the batch and fails that item alone', async () => {
    const body = (doc.paths['/v1/contacts/bulk'].post as any).requestBody.content['application/json'].schema;
    const item = resolve(body.properties.contacts.items);
    expect(item.required ?? []).not.toContain('email');
    expect(item.properties.email.type).toBe('string');

    const { key } = await server.createAccountWithKey();
    const res = await server.request('POST', '/v1/contacts/bulk', { key, body: { contacts: [{ email: 'kept@example.com' }, { name: 'No Address' }] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, created: 1, failed: 1 });
    expect(res.body.errors).toEqual([{ index: 1, email: null, message: expect.stringMatching(/email is required/) }]);
  });

  it('D18: the segment filter is one recursive schema, SegmentFilter, in every body and answer that holds one', () => {
    const filter = doc.components.schemas.SegmentFilter;
    const self = { $ref: '#/components/schemas/SegmentFilter' };
    const group = (name: string) => filter.anyOf.find((s: any) => s.required?.[0] === name);
    expect(group('all').properties.all.items).toEqual(self);
    expect(group('any').properties.any.items).toEqual(self);
    expect(group('not').properties.not).toEqual(self);
    const bodyFilter = (path: string, method: string) => (doc.paths[path][method] as any).requestBody.content['application/json'].schema.properties.filter;
    expect(bodyFilter('/api/v1/segments', 'post')).toEqual(self);
    expect(bodyFilter('/api/v1/segments/{id}', 'put')).toEqual(self);
    expect(bodyFilter('/api/v1/segments/preview', 'post')).toEqual(self);
    expect(doc.components.schemas.Segment.properties.filter).toEqual(self);
  });

  it('D18: SegmentFilter takes the filters the server takes, top-level not among them, and refuses the shapes it refuses', async () => {
    const validate = documentValidator('#/components/schemas/SegmentFilter');
    const { key } = await server.createAccountWithKey();
    const accepted = [
      { not: { field: 'tags', op: 'contains', value: 'vip' } },
      { not: { not: { field: 'email', op: 'exists' } } },
      { not: { any: [{ field: 'lead_score', op: 'gt', value: 3 }, { field: 'custom_fields.plan', op: 'in', value: ['pro', 2, true] }] } },
      { all: [{ any: [{ field: 'status', op: 'in', value: ['SUBSCRIBED', 'bounced'] }] }, { field: 'created_at', op: 'within_days', value: 30 }] },
      { field: 'campaign.opened', op: 'eq', value: false, campaign_id: 'any', within_days: null },
      { field: 'event', op: 'eq', value: true, event: 'signed_up', within_days: 7 },
      { field: 'custom_fields.vip', op: 'exists', value: null },
    ];
    const refused = [
      [],
      'tags contains vip',
      {},
      { all: [] },
      { not: {} },
      { not: 5 },
      { all: [{ field: 'email', op: 'exists' }], any: [{ field: 'email', op: 'exists' }] },
      { not: { field: 'tags', op: 'contains', value: 'vip' }, also: 1 },
      { field: 'tags', op: 'resembles', value: 'vip' },
      { field: 'tags', op: 'contains', value: 'vip', colour: 'red' },
      { field: 'tags', op: 'contains', value: { vip: true } },
      { field: 'nickname', op: 'eq', value: 'x' },
      { field: 'custom_fields.1st', op: 'eq', value: 'x' },
      { field: 'campaign.opened', op: 'eq', value: false, campaign_id: 0 },
      { field: 'tags', op: 'contains', value: 'x'.repeat(1001) },
    ];
    for (const [filter, takes] of [...accepted.map((f) => [f, true] as const), ...refused.map((f) => [f, false] as const)]) {
      const res = await server.request('POST', '/api/v1/segments/preview', { key, body: { filter } });
      expect(res.status, `server on ${JSON.stringify(filter).slice(0, 80)}: ${res.text.slice(0, 200)}`).toBe(takes ? 200 : 400);
      expect(validate(filter), `SegmentFilter on ${JSON.stringify(filter).slice(0, 80)}`).toBe(takes);
    }
    // The limits no schema holds stay the server's, with their messages: how deep groups nest.
    let deep: unknown = { field: 'email', op: 'exists' };
    for (let i = 0; i < 6; i++) deep = { not: deep };
    expect(validate(deep)).toBe(true);
    const tooDeep = await server.request('POST', '/api/v1/segments/preview', { key, body: { filter: deep } });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.message).toMatch(/groups nest at most 5 deep/);
  });
});
