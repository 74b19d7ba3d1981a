import type { ActingContext } from '../shared/actor.ts';
import { LRUCache } from 'lru-cache';
import type { Db, DbHandle } from '../../db/connect.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { ReadPool } from '../../db/read-pool.ts';
import type { SegmentRow } from '../../db/schema.ts';
import { toContact } from '../contacts/contact.ts';
import { countContactsMatching, fieldSample, pageContacts } from '../contacts/contacts.repo.ts';
import { existingListIds } from '../lists/lists.repo.ts';
import { ConflictError, ValidationError } from '../shared/errors.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso } from '../shared/time.ts';
import { segmentDescription, segmentName, segmentNotFound, SEGMENT_LIMITS, toSegment, type Segment, type SegmentInput } from './segment.ts';
import { parseSegmentFilter, type SegmentCondition } from './segment-filter.ts';
import * as repo from './segments.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

/**
 * What a filter asks of campaigns/: the account's campaign with this id, if any (a port, issue 29
 * item 1). campaigns/ stands above segments/ (its audiences are built from segments), so the wiring
 * passes campaigns' own lookup in (`findCampaign`, which knows which campaigns count) rather than
 * segments/ importing it.
 */
export type CampaignLookup = (db: Db, accountId: number, id: number) => Promise<unknown>;

const segmentExists = (name: string) => new ConflictError('SEGMENT_ALREADY_EXISTS', `a segment named "${name}" already exists`);

/**
 * D18: a filter checked for its shape (segment-filter.ts), then for what it names: every list and
 * campaign id must be the account's own (400 naming the path), so a filter never silently targets
 * nothing because of a typo, and never probes another account's ids.
 */
export async function checkFilter(db: Db, accountId: number, raw: unknown, findCampaign: CampaignLookup): Promise<SegmentCondition> {
  const { condition, references } = parseSegmentFilter(raw);
  const lists = await existingListIds(db, accountId, references.listIds.map((r) => r.id));
  const missingList = references.listIds.find((ref) => !lists.has(ref.id));
  if (missingList) throw new ValidationError(`${missingList.path}: no list ${missingList.id} in this account`);
  for (const ref of references.campaignIds) if (!(await findCampaign(db, accountId, ref.id))) throw new ValidationError(`${ref.path}: no campaign ${ref.id} in this account`);
  return condition;
}

/**
 * A stored filter as its condition. It was checked when saved; a list or campaign it names may
 * have been deleted since, which then simply matches no one, so it is parsed without the id check.
 */
export function storedCondition(row: SegmentRow): SegmentCondition {
  return parseSegmentFilter(JSON.parse(row.filter)).condition;
}

function compileCondition(handle: DbHandle, accountId: number, condition: SegmentCondition) {
  return repo.matchContacts(condition, { dialect: handle.dialect, accountId, nowMs: Date.now() });
}

/** The account's segment as SQL over `contacts` (`GET /contacts?segment_id=`); 404 SEGMENT_NOT_FOUND when missing. */
export async function segmentMatching(handle: DbHandle, accountId: number, id: number) {
  const row = await repo.findSegment(handle.db, accountId, id);
  if (!row) throw segmentNotFound();
  return compileCondition(handle, accountId, storedCondition(row));
}

/**
 * issue 28 C2: how long the list of segments reuses a count. Every count was recomputed on every
 * read, so each time the dashboard showed the list it re-ran every filter. The list reuses a
 * count up to this old, keyed by the segment's `updated_at` (an edit is counted afresh); one
 * segment read (`GET /segments/{id}`, a save) counts now, as D18 says, and renews the entry. A
 * count refused for its time is remembered as long, so the list does not pay for it on every read.
 */
export const COUNT_CACHE = { ttlMs: 30_000, max: 10_000 } as const;

const TOO_LONG_TO_COUNT = "filter: the segment's contacts took too long to count; narrow its conditions";

export class SegmentService {
  private readonly counts = new LRUCache<string, Promise<number>>({ max: COUNT_CACHE.max, ttl: COUNT_CACHE.ttlMs });

  constructor(
    private readonly handle: DbHandle,
    private readonly reads: ReadPool,
    private readonly findCampaign: CampaignLookup,
  ) {}

  async create(acting: ActingContext, accountId: number, input: SegmentInput & { name: string; filter: unknown }): Promise<Segment> {
    const { name, nameKey } = segmentName(input.name);
    const description = segmentDescription(input.description) ?? null;
    // Counted before it is saved: a filter too slow to count is refused, not saved (issue 28 C2).
    const count = await this.count(accountId, await checkFilter(this.handle.db, accountId, input.filter, this.findCampaign));
    try {
      const row = await this.handle.db.transaction().execute(async (trx) => {
        await checkFilter(trx, accountId, input.filter, this.findCampaign);
        if (await repo.findSegmentByNameKey(trx, accountId, nameKey)) throw segmentExists(name);
        const now = nowIso();
        const inserted = await repo.insertSegment(trx, { account_id: accountId, name, name_key: nameKey, description, filter: JSON.stringify(input.filter), created_at: now, updated_at: now });
        await recordAudit(trx, acting, accountId, 'segment.created', { type: 'segment', id: inserted.id });
        return inserted;
      });
      return this.counted(row, count);
    } catch (err) {
      if (isUniqueViolation(err)) throw segmentExists(name);
      throw err;
    }
  }

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageSegments(this.handle.db, accountId, page);
    const segments = [];
    for (const row of rows) segments.push(await this.withCount(row, true));
    return toPage('segments', segments, total, page);
  }

  async get(accountId: number, id: number): Promise<Segment> {
    return this.withCount(await this.require(this.handle.db, accountId, id));
  }

  async update(acting: ActingContext, accountId: number, id: number, input: SegmentInput): Promise<Segment> {
    const renamed = input.name === undefined ? undefined : segmentName(input.name);
    const description = segmentDescription(input.description);
    // Counted before the change is saved, as create does (issue 28 C2).
    const current = await this.require(this.handle.db, accountId, id);
    const count = await this.count(accountId, input.filter === undefined ? storedCondition(current) : await checkFilter(this.handle.db, accountId, input.filter, this.findCampaign));
    try {
      const row = await this.handle.db.transaction().execute(async (trx) => {
        await this.require(trx, accountId, id);
        const changes: Parameters<typeof repo.updateSegment>[3] = { updated_at: nowIso() };
        if (renamed) {
          const clash = await repo.findSegmentByNameKey(trx, accountId, renamed.nameKey);
          if (clash && clash.id !== id) throw segmentExists(renamed.name);
          Object.assign(changes, { name: renamed.name, name_key: renamed.nameKey });
        }
        if (description !== undefined) changes.description = description;
        if (input.filter !== undefined) {
          await checkFilter(trx, accountId, input.filter, this.findCampaign);
          changes.filter = JSON.stringify(input.filter);
        }
        const updated = await repo.updateSegment(trx, accountId, id, changes);
        await recordAudit(trx, acting, accountId, 'segment.updated', { type: 'segment', id });
        return updated;
      });
      return this.counted(row, count);
    } catch (err) {
      if (isUniqueViolation(err)) throw segmentExists(renamed?.name ?? '');
      throw err;
    }
  }

  /** Campaigns that named it keep the id; their audience no longer takes anyone from it. */
  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    await this.handle.db.transaction().execute(async (trx) => {
      await this.require(trx, accountId, id);
      await repo.deleteSegment(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'segment.deleted', { type: 'segment', id });
    });
  }

  /** D18: an unsaved filter's count and its first members (newest first), as the builder shows them; read in the pool (issue 28 C2). */
  async preview(accountId: number, filter: unknown) {
    const condition = await checkFilter(this.handle.db, accountId, filter, this.findCampaign);
    const read = this.reads.reader(accountId, TOO_LONG_TO_COUNT);
    const { rows, total } = await pageContacts(this.handle.db, this.handle.dialect, accountId, { matching: this.compile(accountId, condition), order: 'newest' }, { page: 0, size: SEGMENT_LIMITS.previewSize }, read);
    return { count: total, contacts: rows.map(toContact) };
  }

  /** D18: the segment's members now, newest first; read in the pool (issue 28 C2). */
  async contacts(accountId: number, id: number, page: PageRequest) {
    const row = await this.require(this.handle.db, accountId, id);
    const read = this.reads.reader(accountId, TOO_LONG_TO_COUNT);
    const { rows, total } = await pageContacts(this.handle.db, this.handle.dialect, accountId, { matching: this.compile(accountId, storedCondition(row)), order: 'newest' }, page, read);
    return toPage('contacts', rows.map(toContact), total, page);
  }

  /**
   * The builder's choices (D18 dashboard): custom fields by the types their values have, and the
   * tags in use, from the account's newest 10,000 contacts.
   */
  async fields(accountId: number) {
    const { custom, tags } = await fieldSample(this.handle.db, this.handle.dialect, accountId, 10_000);
    const byKey = new Map<string, Set<'string' | 'number' | 'boolean'>>();
    for (const { key, type } of custom) {
      const kind = type === 'text' || type === 'string' ? 'string' : type === 'integer' || type === 'real' || type === 'number' ? 'number' : type === 'true' || type === 'false' || type === 'boolean' ? 'boolean' : null;
      if (!kind) continue;
      if (!byKey.has(key)) byKey.set(key, new Set());
      byKey.get(key)!.add(kind);
    }
    return { custom_fields: [...byKey].map(([key, types]) => ({ key, types: [...types].sort() })), tags };
  }

  private compile(accountId: number, condition: SegmentCondition) {
    return compileCondition(this.handle, accountId, condition);
  }

  /** How many contacts match now, counted in the read pool (issue 28 C2): 400 past its budget. */
  private count(accountId: number, condition: SegmentCondition): Promise<number> {
    return countContactsMatching(this.handle.db, accountId, this.compile(accountId, condition), this.reads.reader(accountId, TOO_LONG_TO_COUNT));
  }

  /** The segment with a count just made, kept for the list (COUNT_CACHE). */
  private counted(row: SegmentRow, count: number): Segment {
    this.counts.set(`${row.account_id}:${row.id}:${row.updated_at}`, Promise.resolve(count));
    return toSegment(row, count);
  }

  /**
   * The segment with its count now; in a list, a count up to COUNT_CACHE.ttlMs old is reused
   * (issue 28 C2). A refusal (the filter over a cap, or its count over the read budget) names
   * the segment when it is one of a list.
   */
  private async withCount(row: SegmentRow, inList = false): Promise<Segment> {
    const key = `${row.account_id}:${row.id}:${row.updated_at}`;
    let count = inList ? this.counts.get(key) : undefined;
    if (!count) {
      count = (async () => this.count(row.account_id, storedCondition(row)))();
      this.counts.set(key, count);
      // Only a refusal for the filter is kept; any other failure is tried afresh.
      count.catch((err) => {
        if (!(err instanceof ValidationError) && this.counts.get(key) === count) this.counts.delete(key);
      });
    }
    try {
      return toSegment(row, await count);
    } catch (err) {
      if (inList && err instanceof ValidationError) throw new ValidationError(`segment ${row.id} ("${row.name}"): ${err.message}`);
      throw err;
    }
  }

  private async require(db: Db, accountId: number, id: number): Promise<SegmentRow> {
    const row = await repo.findSegment(db, accountId, id);
    if (!row) throw segmentNotFound();
    return row;
  }
}

/**
 * D18: the account's segments among `ids` as SQL over `contacts`, read in the caller's transaction
 * (a campaign's audience, counted or snapshotted). Ids of segments deleted since are skipped.
 */
export async function segmentsMatching(db: Db, dialect: DbHandle['dialect'], accountId: number, ids: number[]) {
  const rows = await repo.findSegments(db, accountId, ids);
  const nowMs = Date.now();
  return rows.map((row) => repo.matchContacts(storedCondition(row), { dialect, accountId, nowMs }));
}

/** D18: every id must name a segment of the account (404 SEGMENT_NOT_FOUND); returns them de-duplicated. */
export async function requireSegments(db: Db, accountId: number, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  const found = new Set((await repo.findSegments(db, accountId, unique)).map((r) => r.id));
  if (unique.some((id) => !found.has(id))) throw segmentNotFound();
  return unique;
}
