/**
 * Baselines, started as their own process by bench/api.ts:
 *   PORT=<port> [DB_FILE=<sendwell.db>] node --import tsx bench/bare-server.ts
 * (a) GET / : the same Fastify version as the API, no logger, one route returning a constant.
 * (e) GET /contacts/:email (only with DB_FILE): the same, plus one raw better-sqlite3 lookup of
 *     the contact by account and e-mail through a statement prepared once. No auth, no schema,
 *     no access log: the cheapest a database-backed read can be, for reference.
 * (g) POST /contacts (only with WRITE_DB_FILE, a copy of its own): the statements a contact's
 *     create runs in Sendwell, raw: the same SQL text (src/domain/contacts/contacts.repo.ts,
 *     suppressions.repo.ts, audit.repo.ts, automations.repo.ts, outbound-webhooks/deliveries.repo.ts),
 *     prepared once, in one BEGIN IMMEDIATE ... COMMIT per request with the connection's pragmas,
 *     on Fastify's JSON body parser. No key, validation, serialiser or log: what the create's
 *     database work costs with nothing of ours around it (issue 35's floor).
 * (h) POST /floor/contacts (with WRITE_DB_FILE): (g) plus the key check, the route's schemas
 *     and the access log and metrics, each by its library alone (see below).
 * (i) GET /floor/contacts/:email: the same around (e)'s lookup (with the memberships, as Sendwell
 *     reads a contact): the floor of the authenticated read.
 * (j) GET /floor/pg/contacts/:email (only with PG_URL): (i) on PostgreSQL.
 * (k) POST /floor/pg/contacts (only with PG_URL): (h) on PostgreSQL, its work as one statement.
 * (f) with ACCESS_LOG=1: (a) with pino writing one access-log line per request, in 4 KiB blocks,
 *     as Sendwell's logger does (src/core.ts, src/app.ts): the access log's own cost.
 */
import SQLite from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { createHash } from 'node:crypto';
import { Histogram, Registry } from 'prom-client';
import { Read, Written } from '../src/http/schemas/common.ts';
import { Contact, CreateContactBody } from '../src/http/schemas/contacts.ts';
import { CREATE_AS_ONE_PG_STATEMENT, CREATE_SQL, READ_SQL } from './lib/create-sql.ts';

/** A pino logger writing to stdout in 4 KiB blocks, as Sendwell's does (src/core.ts). */
function accessLogger() {
  return pino({ level: 'info' }, pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 250 }));
}

/** A read row as the API answers it: the memberships from their JSON, and the SUBSCRIBED ones' list ids. */
function withMemberships<T extends { memberships: string }>(row: T) {
  const memberships = JSON.parse(row.memberships) as { list_id: number; status: string }[];
  return { ...row, memberships, list_ids: memberships.filter((m) => m.status === 'SUBSCRIBED').map((m) => m.list_id) };
}

/**
 * What every keyed request pays besides its statement and schemas, by the libraries alone: the
 * key's SHA-256 looked up in a map (Sendwell caches keys), one access-log line through pino in
 * 4 KiB blocks and one observation of a prom-client histogram with Sendwell's buckets.
 */
function withTheLibraries(scope: FastifyInstance, keys: Map<string, number>): void {
  const log = accessLogger();
  const duration = new Histogram({ name: 'floor_http_request_duration_seconds', help: 'floor', labelNames: ['route', 'method', 'status'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [new Registry()] });
  scope.addHook('onRequest', (req, reply, done) => {
    const key = req.headers['x-api-key'];
    const accountId = typeof key === 'string' ? keys.get(createHash('sha256').update(key).digest('hex')) : undefined;
    if (accountId === undefined) return void reply.code(401).send({ success: false });
    done();
  });
  scope.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? null;
    log.info({ reqId: req.id, method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime), key_id: 1 }, 'request');
    duration.observe({ route: route ?? 'unmatched', method: req.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
}

const accessLog = process.env.ACCESS_LOG ? accessLogger() : null;
const app = Fastify({ logger: false });
if (accessLog) {
  app.addHook('onResponse', (req, reply, done) => {
    accessLog.info({ reqId: req.id, method: req.method, route: req.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
}
app.get('/', async () => ({ hello: 'world' }));

if (process.env.DB_FILE) {
  const db = new SQLite(process.env.DB_FILE, { readonly: true });
  const lookup = db.prepare('select * from contacts where account_id = ? and email = ?');
  const accountId = Number(process.env.ACCOUNT_ID ?? 1);
  app.get<{ Params: { email: string } }>('/contacts/:email', async (req, reply) => {
    const row = lookup.get(accountId, req.params.email);
    if (!row) return reply.status(404).send({ error: 'not found' });
    return row;
  });
}

if (process.env.WRITE_DB_FILE) {
  const db = new SQLite(process.env.WRITE_DB_FILE);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('secure_delete = ON');
  const accountId = Number(process.env.ACCOUNT_ID ?? 1);
  const insert = db.prepare(CREATE_SQL.insertContact);
  const erased = db.prepare(CREATE_SQL.erased);
  const audit = db.prepare(CREATE_SQL.audit);
  const listening = db.prepare(CREATE_SQL.listening);
  const deliveries = db.prepare(CREATE_SQL.webhookFanOut('text'));
  let events = 0;
  const create = db.transaction((body: { email: string; first_name?: string; tags?: string[] }) => {
    const now = new Date().toISOString();
    const email = body.email.toLowerCase();
    const row = insert.get(accountId, email, body.first_name ?? null, null, null, JSON.stringify(body.tags ?? []), '{}', 'SUBSCRIBED', 0, now, now) as { id: number };
    erased.all(accountId, 'ERASURE', `sha256:${email}`);
    audit.run(accountId, now, 'api_key', '1', 'bench', 'contact.created', 'contact', String(row.id), '127.0.0.1', 'autocannon');
    listening.all(accountId, 1, 'CONTACT_CREATED', 'TAG_ADDED');
    const payload = JSON.stringify({ id: `evt_${++events}`, type: 'contact.created', created_at: now, account_id: accountId, data: { contact: row } });
    deliveries.run(accountId, `evt_${events}`, 'contact.created', payload, now);
    return row;
  });
  app.post<{ Body: { email: string; first_name?: string; tags?: string[] } }>('/contacts', async (req) => create.immediate(req.body));

  // (h): (g) with what every create must also do, each by its library alone (issue 35's floor for
  // (c)): the key check, the body validated by ajv against the route's own schema and the answer
  // written by fast-json-stringify from its own (Fastify's default compilers), the access log and
  // the histogram (withTheLibraries). Scoped, so (a), (e) and (g) pay for none of it.
  const keys = new Map((db.prepare('select key_hash, account_id from api_keys').all() as { key_hash: string; account_id: number }[]).map((r) => [r.key_hash, r.account_id]));
  await app.register(async (scope) => {
    withTheLibraries(scope, keys);
    scope.post<{ Body: { email: string; first_name?: string; tags?: string[] } }>(
      '/floor/contacts',
      { schema: { body: CreateContactBody, response: { 200: Written(Contact) } } },
      async (req) => {
        const row = create.immediate(req.body) as unknown as Record<string, unknown> & { tags: string; custom_fields: string };
        const contact = { ...row, tags: JSON.parse(row.tags), custom_fields: JSON.parse(row.custom_fields), list_ids: [], memberships: [] };
        return { success: true, data: contact, message: 'Contact created' };
      },
    );
    // (i): the same for a read, the floor of (b): (e)'s lookup with the memberships gathered in the
    // same statement as Sendwell's (contacts.repo.ts), the key, the answer's schema, the log line.
    const reader = new SQLite(process.env.DB_FILE ?? process.env.WRITE_DB_FILE, { readonly: true });
    const readContact = reader.prepare(READ_SQL.sqlite);
    scope.get<{ Params: { email: string } }>('/floor/contacts/:email', { schema: { response: { 200: Read(Contact) } } }, async (req, reply) => {
      const row = readContact.get(accountId, req.params.email) as (Record<string, unknown> & { tags: string; custom_fields: string; memberships: string }) | undefined;
      if (!row) return reply.status(404).send({ success: false });
      return { success: true, data: { ...withMemberships(row), tags: JSON.parse(row.tags), custom_fields: JSON.parse(row.custom_fields) } };
    });
  });
}

// (j) GET /floor/pg/contacts/:email (with PG_URL, a process of its own): (i) on PostgreSQL, the
// same statement as Sendwell's (contacts.repo.ts) sent by name through a pg pool of 10, as
// Sendwell's pool: the floor of the read on PostgreSQL, whose req/s against (i)'s bounds the
// PostgreSQL read's target from above.
if (process.env.PG_URL) {
  const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 10 });
  const keys = new Map((await pool.query<{ key_hash: string; account_id: number }>('select key_hash, account_id from api_keys')).rows.map((r) => [r.key_hash, Number(r.account_id)]));
  const accountId = Number(process.env.ACCOUNT_ID ?? 1);
  await app.register(async (scope) => {
    withTheLibraries(scope, keys);
    // (k) POST /floor/pg/contacts: (h) on PostgreSQL with the create's work as one statement (one
    // round trip, its own transaction): the least a create can cost on PostgreSQL.
    let events = 0;
    scope.post<{ Body: { email: string; first_name?: string; tags?: string[] } }>(
      '/floor/pg/contacts',
      { schema: { body: CreateContactBody, response: { 200: Written(Contact) } } },
      async (req) => {
        const now = new Date().toISOString();
        const email = req.body.email.toLowerCase();
        const values = [accountId, email, req.body.first_name ?? null, JSON.stringify(req.body.tags ?? []), now, `sha256:${email}`, '1', 'bench', '127.0.0.1', 'autocannon', `evt_${++events}`, JSON.stringify({ type: 'contact.created', created_at: now, email })];
        // tags and custom_fields are jsonb on PostgreSQL: pg hands them over parsed.
        const { rows } = await pool.query<Record<string, unknown>>({ name: 'floor_create', text: CREATE_AS_ONE_PG_STATEMENT, values });
        return { success: true, data: { ...rows[0], list_ids: [], memberships: [] }, message: 'Contact created' };
      },
    );
    scope.get<{ Params: { email: string } }>('/floor/pg/contacts/:email', { schema: { response: { 200: Read(Contact) } } }, async (req, reply) => {
      const { rows } = await pool.query<Record<string, unknown> & { memberships: string }>({ name: 'floor_read', text: READ_SQL.postgres, values: [accountId, req.params.email] });
      const row = rows[0];
      if (!row) return reply.status(404).send({ success: false });
      return { success: true, data: withMemberships(row) };
    });
  });
}

await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
