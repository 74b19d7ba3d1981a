import type { Db, Dialect } from '../../db/connect.ts';
import type { CampaignRow } from '../../db/schema.ts';
import { segmentsMatching } from '../segments/segments.service.ts';
import { matchContacts } from '../segments/segments.repo.ts';
import { readJson } from '../shared/json.ts';
import { followUpCondition, type FollowUp } from './follow-up.ts';
import type { Audience } from './recipients.repo.ts';

/**
 * D18: what an audience takes beside its lists, as SQL over `contacts`: the segments' filters (read
 * now) and a follow-up's part of an earlier campaign. A campaign id of another account matches no
 * one (its recipients are that account's contacts), so it needs no check here.
 */
export async function audienceMatching(db: Db, dialect: Dialect, accountId: number, segmentIds: number[], followUp: FollowUp | null) {
  const matching = await segmentsMatching(db, dialect, accountId, segmentIds);
  if (followUp) matching.push(matchContacts(followUpCondition(followUp), { dialect, accountId, nowMs: Date.now() }));
  return matching;
}

/** D13 and D18: the campaign's lists, segments and follow-up part, then its tags. */
export async function audienceOf(db: Db, dialect: Dialect, c: CampaignRow): Promise<Audience> {
  const matching = await audienceMatching(db, dialect, c.account_id, readJson<number[]>(c.segment_ids, []), readJson<FollowUp | null>(c.follow_up, null));
  return { accountId: c.account_id, listIds: readJson<number[]>(c.list_ids, []), matching, tags: readJson<string[]>(c.tags, []) };
}
