import type { Db } from '../../db/connect.ts';
import { readJson } from '../shared/json.ts';
import { deliveriesHolding, replaceDeliveryPayload } from './deliveries.repo.ts';

/** What an erased person's deliveries carry as their `data` (D21). */
export const ERASED_EVENT_DATA = { erased: true } as const;

/**
 * D21: the account's webhook deliveries whose body names the erased address (the delivery log
 * shows bodies, GET /webhooks/{id}/deliveries) keep their id, type and time but lose their data,
 * which becomes `{ "erased": true }`; one still pending goes out so.
 */
export async function eraseAddressFromDeliveries(db: Db, accountId: number, email: string): Promise<void> {
  for (const row of await deliveriesHolding(db, accountId, JSON.stringify(email))) {
    const body = readJson<Record<string, unknown>>(row.payload, {});
    await replaceDeliveryPayload(db, row.id, JSON.stringify({ ...body, data: ERASED_EVENT_DATA }));
  }
}
