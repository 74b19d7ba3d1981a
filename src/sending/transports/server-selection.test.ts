import { describe, expect, it } from 'vitest';
import { ServerSelection } from './server-selection.ts';

// D23: several mail servers, least-busy with turns on ties, a failing server left out for a while.
const settings = { failuresToLeaveOut: 3, cooldownMs: 30_000 };

describe('ServerSelection (D23)', () => {
  it('takes equal servers in turn', () => {
    const s = new ServerSelection(3, settings);
    const picks = Array.from({ length: 6 }, () => {
      const i = s.pick(0)!;
      s.started(i);
      s.answered(i);
      return i;
    });
    expect(picks).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('gives the next message to the server with the fewest in flight', () => {
    const s = new ServerSelection(2, settings);
    s.started(0);
    s.started(0);
    s.started(1);
    expect(s.pick(0)).toBe(1);
    s.answered(0);
    s.answered(0);
    expect(s.pick(0)).toBe(0);
  });

  it('skips the servers a message has already failed on, and answers null when none is left', () => {
    const s = new ServerSelection(2, settings);
    expect(s.pick(0, new Set([0]))).toBe(1);
    expect(s.pick(0, new Set([0, 1]))).toBeNull();
  });

  it('leaves a server out after N consecutive transport failures, for the cool-down, then tries it again', () => {
    const s = new ServerSelection(2, settings);
    for (let k = 1; k < 3; k++) {
      s.started(0);
      expect(s.failed(0, 1000)).toEqual({ leftOut: false });
    }
    s.started(0);
    expect(s.failed(0, 1000)).toEqual({ leftOut: true, until: 31_000 });
    expect(s.inUse(0, 30_999)).toBe(false);
    expect([s.pick(2000), s.pick(2000), s.pick(2000)]).toEqual([1, 1, 1]);
    expect(s.inUse(0, 31_000)).toBe(true);
    expect(s.pick(31_000, new Set([1]))).toBe(0);
  });

  it('an answer in between resets the count: only consecutive failures leave a server out', () => {
    const s = new ServerSelection(1, settings);
    for (const outcome of ['fail', 'fail', 'answer', 'fail', 'fail'] as const) {
      s.started(0);
      if (outcome === 'answer') s.answered(0);
      else expect(s.failed(0, 0)).toEqual({ leftOut: false });
    }
    expect(s.inUse(0, 0)).toBe(true);
  });

  it('back from the cool-down, one failure leaves it out again; one answer takes it back for good', () => {
    const s = new ServerSelection(1, { failuresToLeaveOut: 2, cooldownMs: 100 });
    s.started(0);
    s.failed(0, 0);
    s.started(0);
    expect(s.failed(0, 0)).toEqual({ leftOut: true, until: 100 });
    s.started(0);
    expect(s.failed(0, 100)).toEqual({ leftOut: true, until: 200 });
    s.started(0);
    s.answered(0);
    s.started(0);
    expect(s.failed(0, 200)).toEqual({ leftOut: false });
  });

  it('failures of messages sent before the server was left out do not stretch its cool-down', () => {
    const s = new ServerSelection(1, { failuresToLeaveOut: 1, cooldownMs: 100 });
    s.started(0);
    s.started(0);
    expect(s.failed(0, 0)).toEqual({ leftOut: true, until: 100 });
    expect(s.failed(0, 50)).toEqual({ leftOut: true, until: 100 });
    expect(s.inUse(0, 100)).toBe(true);
  });
});
