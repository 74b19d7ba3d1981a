import type { Logger } from 'pino';
import type { DbHandle } from '../../db/connect.ts';
import { addEndpointUsage, addKeyUsage } from './api-keys.repo.ts';

interface KeyUsage {
  requests: number;
  /** epoch ms: formatted only when written, not on every request */
  lastUsedAtMs: number;
  endpoints: Map<string, { method: string; route: string; count: number }>;
}

/**
 * D9: request counts, last use and per-endpoint tallies are counted in memory and written in
 * batches, so the hot path of an authenticated request does no database write. Flushed on a
 * timer (at most every 5 s) and on clean shutdown.
 */
export class UsageRecorder {
  private pending = new Map<number, KeyUsage>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly handle: DbHandle,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** `route` is the route pattern (e.g. /api/v1/contacts/:email), or null for unknown routes. */
  record(keyId: number, method: string, route: string | null): void {
    let usage = this.pending.get(keyId);
    if (!usage) {
      usage = { requests: 0, lastUsedAtMs: 0, endpoints: new Map() };
      this.pending.set(keyId, usage);
    }
    usage.requests++;
    usage.lastUsedAtMs = Date.now();
    if (route === null) return;
    const id = method + ' ' + route;
    const endpoint = usage.endpoints.get(id);
    if (endpoint) endpoint.count++;
    else usage.endpoints.set(id, { method, route, count: 1 });
  }

  /** Writes everything counted so far. Flushes never overlap, and a failed batch is counted again later. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBatch());
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async writeBatch(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.handle.db.transaction().execute(async (trx) => {
        const endpointRows = [];
        for (const [keyId, usage] of batch) {
          // A key deleted since its requests were counted takes its statistics with it.
          if (!(await addKeyUsage(trx, keyId, usage.requests, new Date(usage.lastUsedAtMs).toISOString()))) continue;
          for (const e of usage.endpoints.values()) endpointRows.push({ key_id: keyId, ...e });
        }
        await addEndpointUsage(trx, endpointRows);
      });
    } catch (err) {
      this.logger.error({ err }, 'writing API key usage failed; will retry with the next batch');
      this.mergeBack(batch);
    }
  }

  private mergeBack(batch: Map<number, KeyUsage>): void {
    for (const [keyId, old] of batch) {
      const current = this.pending.get(keyId);
      if (!current) {
        this.pending.set(keyId, old);
        continue;
      }
      current.requests += old.requests;
      current.lastUsedAtMs = Math.max(current.lastUsedAtMs, old.lastUsedAtMs);
      for (const [id, e] of old.endpoints) {
        const c = current.endpoints.get(id);
        if (c) c.count += e.count;
        else current.endpoints.set(id, e);
      }
    }
  }
}
