import { describe, expect, it } from 'vitest';
import { interleaveByAccount, sharePerAccount } from './account-shares.ts';

describe('the lane shares a take between accounts', () => {
  it('gives each account an equal share of the take, at least one message', () => {
    expect(sharePerAccount(50, 1)).toBe(50);
    expect(sharePerAccount(50, 2)).toBe(25);
    expect(sharePerAccount(50, 3)).toBe(17);
    expect(sharePerAccount(50, 80)).toBe(1);
    expect(sharePerAccount(50, 0)).toBe(0);
  });

  it('orders a take in turns by account, keeping each account its own order', () => {
    const rows = [
      { account_id: 1, id: 1 },
      { account_id: 1, id: 2 },
      { account_id: 1, id: 3 },
      { account_id: 2, id: 4 },
      { account_id: 3, id: 5 },
      { account_id: 3, id: 6 },
    ];
    expect(interleaveByAccount(rows).map((r) => r.id)).toEqual([1, 4, 5, 2, 6, 3]);
    expect(interleaveByAccount([])).toEqual([]);
  });
});
