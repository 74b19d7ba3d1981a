import { describe, expect, it } from 'vitest';
import { AccountRotation } from './account-rotation.ts';

const turn = (account_id: number, id: number) => ({ campaign: { account_id, id } });
const ids = (r: AccountRotation<ReturnType<typeof turn>>, n: number) => Array.from({ length: n }, () => r.next()?.campaign.id ?? null);

describe('AccountRotation (issue 14 H4)', () => {
  it('takes accounts in turn, and the campaigns of each account in turn', () => {
    // account 1 has campaigns 1, 2, 3; account 2 has campaign 4; account 3 has campaign 5
    const r = new AccountRotation([turn(1, 1), turn(1, 2), turn(1, 3), turn(2, 4), turn(3, 5)]);
    expect(ids(r, 9)).toEqual([1, 4, 5, 2, 4, 5, 3, 4, 5]);
  });

  it('a dropped campaign takes no more turns; an account with none left drops out', () => {
    const a = turn(1, 1);
    const b = turn(2, 2);
    const c = turn(2, 3);
    const r = new AccountRotation([a, b, c]);
    expect(ids(r, 2)).toEqual([1, 2]);
    r.drop(a);
    expect(ids(r, 3)).toEqual([3, 2, 3]);
    r.drop(b);
    r.drop(c);
    expect(r.next()).toBeNull();
    r.drop(c); // dropping twice is harmless
  });
});
