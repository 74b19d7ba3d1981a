import type { DbHandle } from '../../db/connect.ts';
import { newestOfSources, type KeysetSlice } from '../../db/keyset.ts';
import type { ReadPool } from '../../db/read-pool.ts';
import { requireContact } from '../audience/contacts.service.ts';
import { runTimeline } from '../automations/automations.repo.ts';
import { eventTimeline } from '../automations/events.repo.ts';
import { recipientTimeline, type RecipientTimelineColumn } from '../campaigns/recipient-reads.repo.ts';
import { consentTimeline } from '../consent/consents.repo.ts';
import { leftListTimeline } from '../lists/lists.repo.ts';
import { decodeCursor, encodeCursor, rankOfKind, storedTime, TIMELINE_KINDS, toTimelineEntry, type TimelineKind, type TimelinePage } from './timeline.ts';

/** The kinds read from a campaign recipient row's times (D23: opens and clicks by people and by machines apart). */
const RECIPIENT_KINDS: [TimelineKind, RecipientTimelineColumn][] = [
  ['sent', 'sent_at'],
  ['opened', 'human_opened_at'],
  ['opened_by_machine', 'machine_opened_at'],
  ['clicked', 'human_clicked_at'],
  ['clicked_by_machine', 'machine_clicked_at'],
  ['bounced', 'bounced_at'],
  ['complained', 'complained_at'],
  ['unsubscribed', 'unsubscribed_at'],
];

const TOO_LONG = 'size: the timeline took too long to read; ask for fewer entries';

/**
 * Issue 34: a contact's activity, newest first, a page at a time. A contact's history has no
 * bound (every campaign, open and event), so a page never counts or skips it: each source gives
 * at most size + 1 rows after the cursor, read along an index on (contact, time, id), and the
 * page is the newest `size` of those. One query (a UNION ALL of the sources), read in the read
 * pool (issue 28 C2): its cost grows with the history the account made, so it runs within the
 * read budget and in the account's turn, off the HTTP thread.
 */
export class ContactTimelineService {
  constructor(
    private readonly handle: DbHandle,
    private readonly reads: ReadPool,
  ) {}

  async page(accountId: number, rawEmail: string, req: { size: number; cursor?: string }): Promise<TimelinePage> {
    const position = req.cursor === undefined ? null : decodeCursor(req.cursor);
    const { db, dialect } = this.handle;
    const contact = await requireContact(db, accountId, rawEmail);
    const after = position === null ? null : { at: position.at, rank: rankOfKind(position.kind), id: position.id };
    const slice = (kind: TimelineKind): KeysetSlice => ({ dialect, rank: rankOfKind(kind), after, limit: req.size + 1 });
    const sources = [
      consentTimeline(db, contact.id, slice('subscribed')),
      eventTimeline(db, contact.id, slice('event')),
      runTimeline(db, contact.id, slice('automation_run')),
      leftListTimeline(db, contact.id, slice('left_list')),
      ...RECIPIENT_KINDS.map(([kind, column]) => recipientTimeline(db, contact.id, column, slice(kind))),
    ];
    const query = newestOfSources(db, sources, req.size + 1);
    const rows = await this.reads.run(accountId, query, TOO_LONG);
    const shown = rows.slice(0, req.size);
    const last = shown.at(-1);
    return {
      entries: shown.map(toTimelineEntry),
      next_cursor: rows.length > req.size && last ? encodeCursor({ at: storedTime(last.at), kind: TIMELINE_KINDS[Number(last.rank)]!, id: Number(last.id) }) : null,
      size: req.size,
    };
  }
}
