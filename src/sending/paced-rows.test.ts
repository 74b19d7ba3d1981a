import { describe, expect, it } from 'vitest';
import { PacedRows } from './paced-rows.ts';

// D23: rows held back for a domain's cap come back a cap's worth per second.
describe('PacedRows', () => {
  it('spreads each domain over the seconds after its bucket refills, a rate per second', () => {
    const paced = new PacedRows();
    for (const id of [1, 2, 3, 4, 5]) paced.hold(id, 'a.test', 2, 300, 10_000);
    paced.hold(6, 'b.test', 10, 700, 10_050);
    expect(paced.size).toBe(6);
    expect(paced.dueTimes()).toEqual([
      { due: 10_300, ids: [1, 2] },
      { due: 10_750, ids: [6] },
      { due: 11_300, ids: [3, 4] },
      { due: 12_300, ids: [5] },
    ]);
  });

  it('holds nothing until told', () => {
    expect(new PacedRows().dueTimes()).toEqual([]);
  });
});
