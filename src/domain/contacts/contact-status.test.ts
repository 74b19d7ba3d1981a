import { describe, expect, it } from 'vitest';
import { CONTACT_STATUSES, type ContactStatus } from './contact-fields.ts';
import { mailable, STATUS_RULES, statusAfter, type StatusChange } from './contact-status.ts';

// D17.5: every (status, change) pair, written out: the table a reader checks against the contract.
const S: ContactStatus = 'SUBSCRIBED';
const U: ContactStatus = 'UNSUBSCRIBED';
const B: ContactStatus = 'BOUNCED';
const C: ContactStatus = 'COMPLAINED';

const EXPECTED: Record<StatusChange, [from: ContactStatus, to: ContactStatus][]> = {
  PUT_SUBSCRIBED: [[S, S], [U, S], [B, S], [C, S]],
  PUT_UNSUBSCRIBED: [[S, U], [U, U], [B, U], [C, U]],
  UNSUBSCRIBE: [[S, U], [U, U], [B, B], [C, C]],
  RESUBSCRIBE: [[S, S], [U, S], [B, B], [C, C]],
  HARD_BOUNCE: [[S, B], [U, U], [B, B], [C, C]],
  COMPLAINT: [[S, C], [U, C], [B, C], [C, C]],
  IMPORT_UNSUBSCRIBED: [[S, U], [U, U], [B, B], [C, C]],
  IMPORT_BOUNCED: [[S, B], [U, U], [B, B], [C, C]],
  IMPORT_COMPLAINED: [[S, C], [U, C], [B, C], [C, C]],
};

describe('D17.5: one contact-status rule', () => {
  for (const [change, pairs] of Object.entries(EXPECTED) as [StatusChange, [ContactStatus, ContactStatus][]][]) {
    it.each(pairs)(`${change}: %s becomes %s`, (from, to) => {
      expect(statusAfter(from, change)).toBe(to);
    });
  }

  it('covers every change and every status', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(STATUS_RULES).sort());
    for (const pairs of Object.values(EXPECTED)) expect(pairs.map(([from]) => from)).toEqual([...CONTACT_STATUSES]);
  });

  it('COMPLAINED is left only by an explicit PUT', () => {
    const leaving = (Object.keys(STATUS_RULES) as StatusChange[]).filter((c) => statusAfter('COMPLAINED', c) !== 'COMPLAINED');
    expect(leaving.sort()).toEqual(['PUT_SUBSCRIBED', 'PUT_UNSUBSCRIBED']);
  });

  it('nothing but an explicit PUT or the resubscribe button makes a contact SUBSCRIBED', () => {
    const subscribing = (Object.keys(STATUS_RULES) as StatusChange[]).filter((c) => STATUS_RULES[c].to === 'SUBSCRIBED');
    expect(subscribing.sort()).toEqual(['PUT_SUBSCRIBED', 'RESUBSCRIBE']);
  });
});

describe('issue 28 M3: mailable', () => {
  it.each([
    ['SUBSCRIBED', 0, true],
    ['SUBSCRIBED', 1, false],
    ['UNSUBSCRIBED', 0, false],
    ['UNSUBSCRIBED', 1, false],
    ['BOUNCED', 0, false],
    ['COMPLAINED', 0, false],
  ] as const)('%s, awaiting_confirmation %s: %s', (status, awaiting_confirmation, expected) => {
    expect(mailable({ status, awaiting_confirmation })).toBe(expected);
  });
});
