/**
 * Baselines, started as their own process by bench/api.ts:
 *   PORT=<port> [DB_FILE=<sendwell.db>] node --import tsx bench/bare-server.ts
 * (a) GET / : the same Fastify version as the API, no logger, one route returning a constant.
 * (e) GET /contacts/:email (only with DB_FILE): the same, plus one raw better-sqlite3 lookup of
 *     the contact by account and e-mail through a statement prepared once. No auth, no schema,
 *     no access log: the cheapest a database-backed read can be, for reference.
 */
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
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

await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
