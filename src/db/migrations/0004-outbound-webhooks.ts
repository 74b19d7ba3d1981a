import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * Outbound webhooks: the endpoints an account registers, the event types each wants (a table of
 * their own, so the fan-out of an event is one indexed join on both dialects), the deliveries
 * (the outbox the delivery worker claims from) and each delivery's attempts (the delivery log).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  const withId = (name: string) => {
    const t = db.schema.createTable(name);
    return dialect === 'postgres' ? t.addColumn('id', 'bigserial', (c) => c.primaryKey()) : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  };

  await withId('webhook_endpoints')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_account_idx').on('webhook_endpoints').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('webhook_endpoint_events')
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_endpoint_events_pk', ['endpoint_id', 'event_type'])
    .execute();

  await withId('webhook_deliveries')
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // the exact body sent on every attempt, so a retry carries the same bytes
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', ts, (c) => c.notNull())
    // a worker's claim; a crashed worker's claims become claimable again when it passes
    .addColumn('locked_until', ts)
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('delivered_at', ts)
    .execute();
  // The worker's claim: due PENDING rows in time order.
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  // The delivery log: an endpoint's deliveries, newest first.
  await db.schema.createIndex('webhook_deliveries_endpoint_idx').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
  // Pruning the log: finished deliveries past the retention period, oldest first.
  await db.schema.createIndex('webhook_deliveries_created_idx').on('webhook_deliveries').columns(['created_at']).execute();

  await withId('webhook_delivery_attempts')
    .addColumn('delivery_id', 'bigint', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', ts, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .execute();
  await db.schema.createIndex('webhook_delivery_attempts_delivery_idx').on('webhook_delivery_attempts').columns(['delivery_id', 'id']).execute();
}
