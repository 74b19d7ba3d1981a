/**
 * The transactional lane's fairness (every queue shared by accounts is fair): a take of `size`
 * messages is shared between the accounts that have some due, so one account's burst of
 * thousands waits behind nobody but is never ahead of another account's one receipt by more
 * than a take. Pure, tested beside it.
 */

/** How many messages each of `accounts` may have in a take of `size`: an equal share, at least one. */
export function sharePerAccount(size: number, accounts: number): number {
  return accounts === 0 ? 0 : Math.max(1, Math.ceil(size / accounts));
}

/** The rows in turns by account (each account's first, then each one's second, ...), each account's own order kept. */
export function interleaveByAccount<T extends { account_id: number | string }>(rows: readonly T[]): T[] {
  const queues = new Map<string, T[]>();
  for (const row of rows) {
    const key = String(row.account_id);
    const queue = queues.get(key);
    if (queue) queue.push(row);
    else queues.set(key, [row]);
  }
  const out: T[] = [];
  for (let i = 0; out.length < rows.length; i++) for (const queue of queues.values()) if (i < queue.length) out.push(queue[i]!);
  return out;
}
