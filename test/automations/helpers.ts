import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import type { Tenant } from '../sending/send-helpers.ts';

export type Run = Record<string, any>;

/** Creates and activates an automation; returns its id. */
export async function activeAutomation(t: Tenant, body: Record<string, unknown>): Promise<number> {
  const created = await t.call('POST', '/api/v1/automations', { name: 'Flow', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.data.id;
  expect((await t.call('POST', `/api/v1/automations/${id}/activate`)).status).toBe(200);
  return id;
}

export async function runsOf(t: Tenant, automationId: number): Promise<Run[]> {
  const res = await t.call('GET', `/api/v1/automations/${automationId}/runs?size=100`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.runs;
}

/** Polls the automation's runs until `done(runs)` holds; fails after `timeoutMs`. */
export async function waitForRuns(t: Tenant, automationId: number, done: (runs: Run[]) => boolean, timeoutMs = 15_000): Promise<Run[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await runsOf(t, automationId);
    if (done(runs)) return runs;
    if (Date.now() > deadline) throw new Error(`runs of automation ${automationId} never got there: ${JSON.stringify(runs)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const allEnded = (n: number) => (runs: Run[]) => runs.length === n && runs.every((r) => r.status !== 'ACTIVE');

/**
 * An event for a subscriber: the contact is made first (an existing one is left as it is), since a
 * contact that an event creates waits for consent and is mailed nothing (issue 30 item 6).
 */
export async function event(server: TestServer, key: string, body: Record<string, unknown>) {
  await server.request('POST', '/api/v1/contacts', { key, body: { email: body.email } });
  return server.request('POST', '/v1/events', { key, body });
}
