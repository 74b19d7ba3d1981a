import type { ActingContext } from '../shared/actor.ts';
import type { DbHandle } from '../../db/connect.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import { findAccount } from '../accounts/accounts.repo.ts';
import { PLAN_LIMITS, isPlan, type Plan } from '../accounts/plans.ts';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { readJson, writeJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, parseInputTimestamp, toApiTimestamp, toEpochMs } from '../shared/time.ts';
import * as repo from './api-keys.repo.ts';
import type { KeyStatusFilter } from './api-keys.repo.ts';
import { generateKey, hasValidChecksum, hashKey, maskKey } from './key-format.ts';
import type { AuthenticatedKey, KeyCache } from './key-cache.ts';
import { isPermission, PERMISSIONS } from './permissions.ts';
import type { UsageRecorder } from './usage-recorder.ts';
import { lockAccount } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { AuditAction } from '../audit/audit-entry.ts';

export type KeyStatus = 'Active' | 'Revoked' | 'Expired';

export interface ApiKey {
  id: number;
  name: string;
  description: string | null;
  masked_key: string;
  permissions: string[];
  status: KeyStatus;
  permanently_revoked: boolean;
  request_count: number;
  last_used_at: string | null;
  created_at: string;
  expires_at: string | null;
}

export interface CreateKeyInput {
  name: string;
  description?: string | null;
  permissions: string[];
  expires_at?: string | null;
}

export type UpdateKeyInput = Partial<CreateKeyInput>;

const keyNotFound = () => new NotFoundError('API_KEY_NOT_FOUND', 'API key not found');

/** Expired is not stored: an Active key whose expiry date has passed is Expired from that instant. */
function effectiveStatus(status: string, expiresAt: string | Date | null, nowMs: number): KeyStatus {
  if (status === 'Revoked') return 'Revoked';
  const expiresMs = toEpochMs(expiresAt);
  return expiresMs !== null && expiresMs <= nowMs ? 'Expired' : 'Active';
}

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    masked_key: row.masked_key,
    permissions: readJson<string[]>(row.permissions, []),
    status: effectiveStatus(row.status, row.expires_at, Date.now()),
    permanently_revoked: row.permanently_revoked === 1,
    request_count: Number(row.request_count),
    last_used_at: toApiTimestamp(row.last_used_at),
    created_at: toApiTimestamp(row.created_at),
    expires_at: toApiTimestamp(row.expires_at),
  };
}

function normalisePermissions(permissions: string[]): string[] {
  if (permissions.length === 0) throw new ValidationError('permissions must name at least one permission');
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length > 0) {
    throw new ValidationError(`permissions: unknown permission ${unknown.map((p) => JSON.stringify(p)).join(', ')}; allowed: ${PERMISSIONS.join(', ')}`);
  }
  return [...new Set(permissions)];
}

function normaliseName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new ValidationError('name must not be empty');
  return trimmed;
}

function futureExpiry(raw: string): string {
  const iso = parseInputTimestamp('expires_at', raw);
  if (Date.parse(iso) <= Date.now()) throw new ValidationError('expires_at must be in the future');
  return iso;
}

export class ApiKeyService {
  constructor(
    private readonly handle: DbHandle,
    private readonly cache: KeyCache,
    private readonly usage: UsageRecorder,
  ) {}

  /**
   * The hot path of every request. A known hash is answered from the cache; a key with a bad
   * checksum never reaches the database (checked only on a miss, as a cached key passed it).
   */
  async authenticate(rawKey: string): Promise<AuthenticatedKey | null> {
    const hash = hashKey(rawKey);
    let key = this.cache.get(hash);
    if (key === undefined) {
      if (!hasValidChecksum(rawKey)) return null;
      const row = await repo.findKeyForAuth(this.handle.db, hash);
      key = row && isPlan(row.plan)
        ? {
            keyId: row.id,
            name: row.name,
            accountId: row.account_id,
            plan: row.plan as Plan,
            permissions: new Set(readJson<string[]>(row.permissions, [])),
            status: row.status,
            expiresAtMs: toEpochMs(row.expires_at),
          }
        : null;
      this.cache.set(hash, key);
    }
    if (!key || key.status !== 'Active') return null;
    if (key.expiresAtMs !== null && key.expiresAtMs <= Date.now()) return null;
    return key;
  }

  /** Used by the API and the CLI alike, so the plan's key limit holds for both (D9). */
  async create(acting: ActingContext, accountId: number, input: CreateKeyInput): Promise<ApiKey & { key: string }> {
    const name = normaliseName(input.name);
    const permissions = normalisePermissions(input.permissions);
    const expiresAt = input.expires_at ? futureExpiry(input.expires_at) : null;
    const key = generateKey();
    const row = await this.handle.db.transaction().execute(async (trx) => {
      // Without the lock, concurrent creates on PostgreSQL all read the same count and pass the plan's limit (D9).
      // SQLite transactions already run one at a time (BEGIN IMMEDIATE, see db/connect.ts).
      if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
      const account = await findAccount(trx, accountId);
      if (!account) throw new NotFoundError('NOT_FOUND', `account ${accountId} does not exist`);
      const limit = isPlan(account.plan) ? PLAN_LIMITS[account.plan].maxKeys : 0;
      if (limit !== null && (await repo.countKeys(trx, accountId)) >= limit) {
        throw new ForbiddenError('KEY_LIMIT_REACHED', `the ${account.plan} plan allows ${limit} API keys; delete one first`);
      }
      const now = nowIso();
      const inserted = await repo.insertKey(trx, {
        account_id: accountId,
        name,
        description: input.description ?? null,
        key_hash: hashKey(key),
        masked_key: maskKey(key),
        permissions: writeJson(permissions),
        status: 'Active',
        permanently_revoked: 0,
        created_at: now,
        updated_at: now,
        expires_at: expiresAt,
      });
      // D24.8: the key's id and the name as the label shows it; never its value.
      await recordAudit(trx, acting, accountId, 'api_key.created', { type: 'api_key', id: inserted.id });
      return inserted;
    });
    return { ...toApiKey(row), key };
  }

  async list(accountId: number, filter: { search?: string; status?: KeyStatusFilter }, page: PageRequest) {
    await this.usage.flush();
    const { rows, total } = await repo.pageKeys(this.handle.db, accountId, { search: filter.search, status: filter.status ?? 'all', now: nowIso() }, page);
    return toPage('api_keys', rows.map(toApiKey), total, page);
  }

  async get(accountId: number, id: number): Promise<ApiKey> {
    await this.usage.flush();
    return toApiKey(await this.requireKey(accountId, id));
  }

  async summary(accountId: number) {
    await this.usage.flush();
    const s = await repo.keySummary(this.handle.db, accountId, nowIso());
    return { total: s.total, active: s.active, inactive: s.total - s.active, total_requests: s.total_requests, top_endpoints: s.top_endpoints };
  }

  async update(acting: ActingContext, accountId: number, id: number, input: UpdateKeyInput): Promise<ApiKey> {
    const current = await this.requireKey(accountId, id);
    if (current.permanently_revoked === 1) throw new InvalidStateError('a permanently revoked key can only be deleted');
    const changes: Parameters<typeof repo.updateKey>[3] = { updated_at: nowIso() };
    if (input.name !== undefined) changes.name = normaliseName(input.name);
    if (input.description !== undefined) changes.description = input.description;
    if (input.permissions !== undefined) changes.permissions = writeJson(normalisePermissions(input.permissions));
    if (input.expires_at !== undefined) changes.expires_at = input.expires_at === null ? null : futureExpiry(input.expires_at);
    return this.save(acting, accountId, current, changes, 'api_key.updated');
  }

  async deactivate(acting: ActingContext, accountId: number, id: number): Promise<ApiKey> {
    const current = await this.requireKey(accountId, id);
    if (current.permanently_revoked === 1) throw new InvalidStateError('the key is permanently revoked');
    return this.save(acting, accountId, current, { status: 'Revoked', updated_at: nowIso() }, 'api_key.deactivated');
  }

  async activate(acting: ActingContext, accountId: number, id: number): Promise<ApiKey> {
    const current = await this.requireKey(accountId, id);
    if (current.permanently_revoked === 1) throw new InvalidStateError('a permanently revoked key cannot be activated again');
    if (effectiveStatus('Active', current.expires_at, Date.now()) === 'Expired') {
      throw new InvalidStateError('the key has expired; set a new expires_at or regenerate it');
    }
    return this.save(acting, accountId, current, { status: 'Active', updated_at: nowIso() }, 'api_key.activated');
  }

  async revoke(acting: ActingContext, accountId: number, id: number): Promise<ApiKey> {
    const current = await this.requireKey(accountId, id);
    return this.save(acting, accountId, current, { status: 'Revoked', permanently_revoked: 1, updated_at: nowIso() }, 'api_key.revoked');
  }

  /** A new value, shown once; the old one fails from its next request. An expiry already past is cleared. */
  async regenerate(acting: ActingContext, accountId: number, id: number): Promise<ApiKey & { key: string }> {
    const current = await this.requireKey(accountId, id);
    if (current.permanently_revoked === 1) throw new InvalidStateError('a permanently revoked key cannot be regenerated');
    const key = generateKey();
    const expired = effectiveStatus('Active', current.expires_at, Date.now()) === 'Expired';
    const row = await this.save(acting, accountId, current, {
      key_hash: hashKey(key),
      masked_key: maskKey(key),
      status: 'Active',
      updated_at: nowIso(),
      ...(expired ? { expires_at: null } : {}),
    }, 'api_key.regenerated');
    return { ...row, key };
  }

  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    const current = await this.requireKey(accountId, id);
    await this.handle.db.transaction().execute(async (trx) => {
      await repo.deleteKey(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'api_key.deleted', { type: 'api_key', id });
    });
    this.cache.invalidate(current.key_hash);
  }

  private async requireKey(accountId: number, id: number): Promise<ApiKeyRow> {
    const row = await repo.findKey(this.handle.db, accountId, id);
    if (!row) throw keyNotFound();
    return row;
  }

  private async save(acting: ActingContext, accountId: number, current: ApiKeyRow, changes: Parameters<typeof repo.updateKey>[3], action: AuditAction): Promise<ApiKey> {
    const row = await this.handle.db.transaction().execute(async (trx) => {
      const updated = await repo.updateKey(trx, accountId, current.id, changes);
      await recordAudit(trx, acting, accountId, action, { type: 'api_key', id: current.id });
      return updated;
    });
    this.cache.invalidate(current.key_hash);
    return toApiKey(row);
  }
}
