import type { ActingContext } from '../shared/actor.ts';
import { randomBytes } from 'node:crypto';
import type { Db, DbHandle } from '../../db/connect.ts';
import type { WebhookEndpointsTable } from '../../db/schema.ts';
import type { Selectable, Updateable } from 'kysely';
import { NotFoundError, ValidationError } from '../shared/errors.ts';
import { cleanHttpUrl } from '../shared/http-url.ts';
import { readJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { insertDelivery, pageDeliveries } from './deliveries.repo.ts';
import { DELIVERY_STATUSES, TEST_EVENT_TYPE, WEBHOOK_LIMITS, type DeliveryStatus } from './webhook-endpoint.ts';
import { eventBody, isWebhookEventType, newEventId, WEBHOOK_EVENT_TYPES } from './enqueue.ts';
import * as repo from './webhook-endpoints.repo.ts';
import { unreachableReason } from './destination-guard.ts';
import { recordAudit } from '../audit/audit.service.ts';


export interface WebhookEndpoint {
  id: number;
  url: string;
  event_types: string[];
  description: string | null;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointInput {
  url?: string;
  event_types?: string[];
  description?: string | null;
  is_active?: boolean;
}

export const webhookNotFound = () => new NotFoundError('WEBHOOK_NOT_FOUND', 'webhook endpoint not found');

type EndpointRow = Selectable<WebhookEndpointsTable>;

function toEndpoint(row: EndpointRow, eventTypes: string[]): WebhookEndpoint {
  // In the order of the documented list, whatever order they were given in.
  const types = WEBHOOK_EVENT_TYPES.filter((t) => eventTypes.includes(t));
  return {
    id: row.id,
    url: row.url,
    event_types: types,
    description: row.description,
    is_active: row.is_active === 1,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** Whether its host may be reached is decided when delivering, after DNS resolution (a name can change its address at any time). */
const cleanUrl = (raw: string) => cleanHttpUrl(raw, 'url', WEBHOOK_LIMITS.urlMax, '; check the Sendwell-Signature header instead');

function cleanEventTypes(raw: string[]): string[] {
  if (raw.length === 0) throw new ValidationError('event_types must name at least one event type');
  const unknown = raw.filter((t) => !isWebhookEventType(t));
  if (unknown.length > 0) {
    throw new ValidationError(`event_types: unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; the types are ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  return [...new Set(raw)];
}

function cleanDescription(value: string | null | undefined): string | null | undefined {
  if (typeof value === 'string' && [...value].length > WEBHOOK_LIMITS.descriptionMax) {
    throw new ValidationError(`description must be at most ${WEBHOOK_LIMITS.descriptionMax} characters`);
  }
  return value;
}

/** A signing secret in the form receivers know from Stripe: a prefix and 32 random bytes. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The outbound webhook endpoints an account registers, and their delivery log. Deliveries
 * themselves are made by the delivery worker (src/webhook-delivery).
 */
export class WebhookEndpointService {
  constructor(
    private readonly handle: DbHandle,
    /** WEBHOOKS_ALLOW_PRIVATE: loopback and private destinations are accepted (local development) */
    private readonly allowPrivate = false,
  ) {}

  /** D26.8: a destination deliveries may reach, after the shape of the URL and the other fields are checked. */
  private async refuseUnreachable(url: string): Promise<void> {
    const refused = await unreachableReason(url, this.allowPrivate);
    if (refused) throw new ValidationError(refused);
  }

  /** The signing secret is in this answer only; it is never shown again. */
  async create(acting: ActingContext, accountId: number, input: WebhookEndpointInput & { url: string; event_types: string[] }): Promise<WebhookEndpoint & { secret: string }> {
    const url = cleanUrl(input.url);
    const types = cleanEventTypes(input.event_types);
    await this.refuseUnreachable(url);
    const now = nowIso();
    return this.handle.db.transaction().execute(async (trx) => {
      const row = await repo.insertEndpoint(trx, {
        account_id: accountId,
        url,
        secret: newSecret(),
        description: cleanDescription(input.description) ?? null,
        is_active: input.is_active === false ? 0 : 1,
        created_at: now,
        updated_at: now,
      });
      await repo.setEventTypes(trx, row.id, types);
      // D24.8: the endpoint's id; its signing secret never reaches the log.
      await recordAudit(trx, acting, accountId, 'webhook.created', { type: 'webhook', id: row.id });
      return { ...toEndpoint(row, types), secret: row.secret };
    });
  }

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageEndpoints(this.handle.db, accountId, page);
    const types = await repo.eventTypesOf(this.handle.db, rows.map((r) => r.id));
    return toPage('webhooks', rows.map((r) => toEndpoint(r, types.get(r.id) ?? [])), total, page);
  }

  async get(accountId: number, id: number): Promise<WebhookEndpoint> {
    return this.withTypes(this.handle.db, await this.require(this.handle.db, accountId, id));
  }

  async update(acting: ActingContext, accountId: number, id: number, input: WebhookEndpointInput): Promise<WebhookEndpoint> {
    const changes: Updateable<WebhookEndpointsTable> = { updated_at: nowIso() };
    if (input.url !== undefined) changes.url = cleanUrl(input.url);
    if (input.description !== undefined) changes.description = cleanDescription(input.description);
    if (input.is_active !== undefined) changes.is_active = input.is_active ? 1 : 0;
    const types = input.event_types === undefined ? undefined : cleanEventTypes(input.event_types);
    if (changes.url) await this.refuseUnreachable(changes.url);
    return this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      const row = await repo.updateEndpoint(trx, accountId, id, changes);
      if (types) await repo.setEventTypes(trx, id, types);
      await recordAudit(trx, acting, accountId, 'webhook.updated', { type: 'webhook', id });
      return this.withTypes(trx, row);
    });
  }

  /**
   * A new signing secret, shown in this answer only; the old one stops at once. Deliveries are
   * signed when they are made, so pending retries carry the new one.
   */
  async rotateSecret(acting: ActingContext, accountId: number, id: number): Promise<WebhookEndpoint & { secret: string }> {
    return this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      const row = await repo.updateEndpoint(trx, accountId, id, { secret: newSecret(), updated_at: nowIso() });
      // D24.8: the secret itself is never in an entry.
      await recordAudit(trx, acting, accountId, 'webhook.secret_rotated', { type: 'webhook', id });
      return { ...(await this.withTypes(trx, row)), secret: row.secret };
    });
  }

  /** Removes the endpoint with its delivery log; deliveries not yet made are dropped. */
  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      await repo.deleteEndpoint(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'webhook.deleted', { type: 'webhook', id });
    });
  }

  /** Queues a `webhook.test` event for this endpoint alone; it shows in the delivery log like any other. */
  async sendTest(acting: ActingContext, accountId: number, id: number) {
    return this.handle.db.transaction().execute(async (trx) => {
      const endpoint = await this.require(trx, accountId, id);
      const now = nowIso();
      const eventId = newEventId();
      const data = { webhook_id: endpoint.id, message: 'A test event from Sendwell.' };
      const row = await insertDelivery(trx, { endpointId: id, eventId, eventType: TEST_EVENT_TYPE, payload: eventBody(eventId, TEST_EVENT_TYPE, accountId, now, data), now });
      await recordAudit(trx, acting, accountId, 'webhook.test_sent', { type: 'webhook', id });
      return toDelivery(row, []);
    });
  }

  /** The delivery log: the endpoint's deliveries newest first, each with its attempts. */
  async deliveries(accountId: number, id: number, status: string | undefined, page: PageRequest) {
    if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
      throw new ValidationError(`status must be one of ${DELIVERY_STATUSES.join(', ')}`);
    }
    await this.require(this.handle.db, accountId, id);
    const { rows, attempts, total } = await pageDeliveries(this.handle.db, id, status as DeliveryStatus | undefined, page);
    const byDelivery = new Map<number, AttemptRow[]>();
    for (const a of attempts) {
      const id = Number(a.delivery_id);
      byDelivery.set(id, byDelivery.get(id) ?? []);
      byDelivery.get(id)!.push(a);
    }
    return toPage('deliveries', rows.map((r) => toDelivery(r, byDelivery.get(r.id) ?? [])), total, page);
  }

  private async withTypes(db: Db, row: EndpointRow): Promise<WebhookEndpoint> {
    return toEndpoint(row, (await repo.eventTypesOf(db, [row.id])).get(row.id) ?? []);
  }

  private async require(db: Db, accountId: number, id: number): Promise<EndpointRow> {
    const row = await repo.findEndpoint(db, accountId, id);
    if (!row) throw webhookNotFound();
    return row;
  }
}

type DeliveryRow = Awaited<ReturnType<typeof pageDeliveries>>['rows'][number];
type AttemptRow = Awaited<ReturnType<typeof pageDeliveries>>['attempts'][number];

function toDelivery(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    next_attempt_at: row.status === 'PENDING' ? toApiTimestamp(row.next_attempt_at) : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    delivered_at: toApiTimestamp(row.delivered_at),
    payload: readJson<Record<string, unknown>>(row.payload, {}),
    attempt_log: attempts.map((a) => ({
      attempted_at: toApiTimestamp(a.attempted_at),
      status_code: a.status_code,
      error: a.error,
      duration_ms: Number(a.duration_ms),
      response_excerpt: a.response_excerpt,
    })),
  };
}
export type WebhookDelivery = ReturnType<typeof toDelivery>;
