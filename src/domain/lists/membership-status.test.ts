import { describe, expect, it } from 'vitest';
import { countDelta, MEMBERSHIP_RULES, MEMBERSHIP_STATUSES, membershipAfter, subscriptionChange, type MembershipChange, type MembershipStatus } from './membership-status.ts';

// D20: every (membership, change) pair, written out: the table a reader checks against the contract.
// null: the contact is not a member.
const S: MembershipStatus = 'SUBSCRIBED';
const C: MembershipStatus = 'UNCONFIRMED';
const U: MembershipStatus = 'UNSUBSCRIBED';
const FROM = [null, S, C, U] as const;

const EXPECTED: Record<MembershipChange, (MembershipStatus | null)[]> = {
  //                   none  S  C  U
  ADD: /*           */ [S, S, S, U],
  ADD_NEW_ONLY: /*  */ [S, S, C, U],
  REQUEST_CONFIRMATION: [C, S, C, C],
  REQUEST_CONFIRMATION_NEW_ONLY: [C, S, C, U],
  PERSON_SUBSCRIBE: /* */ [S, S, S, S],
  CONFIRM: /*       */ [null, S, S, U],
  UNSUBSCRIBE: /*   */ [null, U, U, U],
};

describe('D20: one membership-status rule', () => {
  for (const [change, after] of Object.entries(EXPECTED) as [MembershipChange, (MembershipStatus | null)[]][]) {
    it.each(FROM.map((from, i) => [from, after[i]]))(`${change}: %s becomes %s`, (from, to) => {
      expect(membershipAfter(from, change)).toBe(to);
    });
  }

  it('covers every change', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(MEMBERSHIP_RULES).sort());
  });

  it('a new membership is made in the status the change leads to, which it never leaves from (the repo inserts, then updates)', () => {
    for (const rule of Object.values(MEMBERSHIP_RULES)) {
      expect([null, rule.to]).toContain(rule.create);
      expect(rule.from).not.toContain(rule.to);
    }
  });

  it('nothing makes a SUBSCRIBED membership UNCONFIRMED (a second sign-up never downgrades)', () => {
    for (const change of Object.keys(MEMBERSHIP_RULES) as MembershipChange[]) expect(membershipAfter(S, change)).not.toBe(C);
  });

  it("only the person's own acts undo an UNSUBSCRIBED membership", () => {
    const undoing = (Object.keys(MEMBERSHIP_RULES) as MembershipChange[]).filter((c) => membershipAfter(U, c) !== U);
    expect(undoing.sort()).toEqual(['PERSON_SUBSCRIBE', 'REQUEST_CONFIRMATION']);
  });

  it('contact_count moves by one exactly when SUBSCRIBED is entered or left', () => {
    const statuses = [null, ...MEMBERSHIP_STATUSES];
    for (const before of statuses) {
      for (const after of statuses) {
        expect(countDelta(before, after)).toBe((after === S ? 1 : 0) - (before === S ? 1 : 0));
      }
    }
    expect(countDelta(C, S)).toBe(1);
    expect(countDelta(S, U)).toBe(-1);
    expect(countDelta(C, null)).toBe(0);
  });
});

describe('D20: what a subscription asks of a list', () => {
  it.each([
    ['FORM', true, 'double', 'REQUEST_CONFIRMATION'],
    ['API', true, 'double', 'REQUEST_CONFIRMATION'],
    ['IMPORT', true, 'double', 'REQUEST_CONFIRMATION'],
    ['FORM', true, 'single', 'PERSON_SUBSCRIBE'],
    ['FORM', false, 'double', 'PERSON_SUBSCRIBE'],
    ['API', false, 'double', 'ADD'],
    ['API', true, 'single', 'ADD'],
    ['IMPORT', false, 'single', 'ADD_NEW_ONLY'],
  ] as const)('%s, double opt-in %s, a %s list: %s', (source, doubleOptIn, optIn, change) => {
    expect(subscriptionChange(source, doubleOptIn, optIn)).toBe(change);
  });
});
