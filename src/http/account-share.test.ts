import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AccountShare } from './account-share.ts';

/** A response as the share sees it: something that closes once. */
const response = () => new EventEmitter() as unknown as ServerResponse;
const close = (res: ServerResponse) => res.emit('close');

/** Enters `n` requests of `account`; each entry says whether it has started. */
function enterMany(share: AccountShare, account: number, n: number) {
  return Array.from({ length: n }, () => {
    const res = response();
    const turn = share.enter(account, res);
    const entry = { res, turn, started: turn === null };
    if (turn instanceof Promise) void turn.then(() => (entry.started = true));
    return entry;
  });
}
const started = (entries: { started: boolean }[]) => entries.filter((e) => e.started).length;

describe("AccountShare (issue 28: an account's share of the HTTP thread)", () => {
  it('starts perTurn requests of an account in a turn, even when each is answered at once; the rest start in later turns', async () => {
    const share = new AccountShare({ inProgress: 100, perTurn: 2, waitingPerAccount: 256 });
    const entries: ReturnType<typeof enterMany> = [];
    // Requests answered in the same turn they start, as a synchronous SQLite handler is.
    for (let i = 0; i < 5; i++) {
      const [entry] = enterMany(share, 1, 1);
      entries.push(entry);
      if (entry.started) close(entry.res);
    }
    expect(entries.map((e) => e.started)).toEqual([true, true, false, false, false]);
    await nextTurn();
    expect(started(entries)).toBe(4);
    await nextTurn();
    expect(started(entries)).toBe(5);
  });

  it('keeps at most inProgressPerAccount requests of an account in progress', async () => {
    const share = new AccountShare({ inProgress: 3, perTurn: 2, waitingPerAccount: 256 });
    const entries = enterMany(share, 1, 6);
    await nextTurn();
    await nextTurn();
    expect(started(entries)).toBe(3);
    expect(share.inProgress(1)).toBe(3);
    expect(share.waiting(1)).toBe(3);
    close(entries[0].res);
    await nextTurn();
    expect(started(entries)).toBe(4);
    // In order: the fourth, not a later one.
    expect(entries[3].started).toBe(true);
  });

  it('never makes one account wait for another', () => {
    const share = new AccountShare({ inProgress: 1, perTurn: 1, waitingPerAccount: 256 });
    enterMany(share, 1, 10);
    const [other] = enterMany(share, 2, 1);
    expect(other.started).toBe(true);
  });

  it('frees the place once the answer is written, not when a slow client has read it all', async () => {
    const share = new AccountShare({ inProgress: 1, perTurn: 1, waitingPerAccount: 256 });
    const [answered, next] = enterMany(share, 1, 2);
    // `prefinish`: end() was called and the answer handed to the socket; a client that does not
    // read holds back `finish` and `close` for as long as it likes.
    answered.res.emit('prefinish');
    expect(share.inProgress(1)).toBe(0);
    await nextTurn();
    expect(next.started).toBe(true);
    // The close that follows counts nothing twice.
    close(answered.res);
    expect(share.inProgress(1)).toBe(1);
  });

  it('frees the place of a request whose client went away while it waited', async () => {
    const share = new AccountShare({ inProgress: 1, perTurn: 1, waitingPerAccount: 256 });
    const [running, gone, next] = enterMany(share, 1, 3);
    close(gone.res);
    expect(share.waiting(1)).toBe(1);
    close(running.res);
    await nextTurn();
    expect(next.started).toBe(true);
    expect(gone.started).toBe(false);
  });

  it('refuses past the waiting cap, and forgets an account once it is idle', async () => {
    const share = new AccountShare({ inProgress: 1, perTurn: 1, waitingPerAccount: 2 });
    const entries = enterMany(share, 1, 4);
    expect(entries.map((e) => e.turn === 'refused')).toEqual([false, false, false, true]);
    for (const entry of entries.slice(0, 3)) {
      close(entry.res);
      await nextTurn();
    }
    await nextTurn();
    expect(share.inProgress(1)).toBe(0);
    expect(share.waiting(1)).toBe(0);
    expect(enterMany(share, 1, 1)[0].started).toBe(true);
  });
});
