import { describe, expect, it } from 'vitest';
import { DomainSlots, PacedRows } from './paced-rows.ts';

// D23: rows held back for a domain's cap come back at the cap, a backlog spread over the seconds ahead.
describe('DomainSlots', () => {
  it('gives each domain slots a tenth faster than its cap, after those already given, never before `earliest`', () => {
    const slots = new DomainSlots();
    // 2 per second: 1.1 times that, a slot every 454.5 ms.
    expect([1, 2, 3, 4, 5].map(() => Math.round(slots.take('a.test', 2, 10_300)))).toEqual([10_300, 10_755, 11_209, 11_664, 12_118]);
    // A later round's held rows queue behind the backlog.
    expect(Math.round(slots.take('a.test', 2, 10_500))).toBe(12_573);
    // Domains are apart.
    expect(slots.take('b.test', 11, 10_700)).toBe(10_700);
    expect(slots.take('b.test', 11, 10_700)).toBe(10_700 + 1000 / 12.1);
    expect(Math.round(slots.dueUntil())).toBe(13_027);
    expect(Math.round(slots.nextFree('a.test'))).toBe(13_027);
    expect(slots.nextFree('c.test')).toBe(0);
    // Once the backlog is past, a domain starts again from `earliest`.
    expect(slots.take('a.test', 2, 60_000)).toBe(60_000);
    expect(new DomainSlots().dueUntil()).toBe(0);
  });
});

describe('PacedRows', () => {
  it('groups held rows to the 100 ms, earliest first', () => {
    const paced = new PacedRows();
    paced.hold(1, 10_820);
    paced.hold(2, 10_301);
    paced.hold(3, 10_900);
    paced.hold(4, 10_300);
    expect(paced.size).toBe(4);
    expect(paced.dueTimes()).toEqual([
      { due: 10_300, ids: [4] },
      { due: 10_400, ids: [2] },
      { due: 10_900, ids: [1, 3] },
    ]);
  });

  it('holds nothing until told', () => {
    expect(new PacedRows().dueTimes()).toEqual([]);
  });
});
