import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.ts';
import type { WebhookEndpointsTable } from '../../db/schema.ts';
import { pageQuery } from '../../db/page-query.ts';
import type { PageRequest } from '../shared/paging.ts';

export function findEndpoint(db: Db, accountId: number, id: number) {
  return db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function insertEndpoint(db: Db, values: Insertable<WebhookEndpointsTable>) {
  return db.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateEndpoint(db: Db, accountId: number, id: number, values: Updateable<WebhookEndpointsTable>) {
  return db.updateTable('webhook_endpoints').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Its subscriptions, deliveries and their log go with it (ON DELETE CASCADE). */
export async function deleteEndpoint(db: Db, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Replaces the event types an endpoint is subscribed to. */
export async function setEventTypes(db: Db, endpointId: number, types: readonly string[]): Promise<void> {
  await db.deleteFrom('webhook_endpoint_events').where('endpoint_id', '=', endpointId).execute();
  await db
    .insertInto('webhook_endpoint_events')
    .values(types.map((event_type) => ({ endpoint_id: endpointId, event_type })))
    .execute();
}

/** Each endpoint's event types, by endpoint id. */
export async function eventTypesOf(db: Db, endpointIds: number[]): Promise<Map<number, string[]>> {
  const byEndpoint = new Map<number, string[]>(endpointIds.map((id) => [id, []]));
  if (endpointIds.length === 0) return byEndpoint;
  const rows = await db.selectFrom('webhook_endpoint_events').select(['endpoint_id', 'event_type']).where('endpoint_id', 'in', endpointIds).execute();
  for (const r of rows) byEndpoint.get(Number(r.endpoint_id))?.push(r.event_type);
  return byEndpoint;
}

/** Endpoints oldest first, ties by id (as lists: settings read in the order they were made). */
export async function pageEndpoints(db: Db, accountId: number, page: PageRequest) {
  const base = db.selectFrom('webhook_endpoints').where('account_id', '=', accountId);
  return pageQuery(base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc'), base, page);
}
