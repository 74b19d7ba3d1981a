/**
 * Turns taken round-robin by account, then by campaign within the account (issue 14 H4): an
 * account with many campaigns, or one heavy one, gets one turn in as many as there are accounts
 * sending, never more. Each account and each of its campaigns keep the order they came in.
 */
export class AccountRotation<T extends { campaign: { account_id: number } }> {
  private readonly accounts: T[][] = [];

  constructor(turns: T[]) {
    const byAccount = new Map<number, T[]>();
    for (const turn of turns) {
      let queue = byAccount.get(turn.campaign.account_id);
      if (!queue) {
        byAccount.set(turn.campaign.account_id, (queue = []));
        this.accounts.push(queue);
      }
      queue.push(turn);
    }
  }

  /** The next account's next campaign, or null when none is left; both go to the back of their queues. */
  next(): T | null {
    const account = this.accounts.shift();
    if (!account) return null;
    const turn = account.shift()!;
    account.push(turn);
    this.accounts.push(account);
    return turn;
  }

  /** The campaign takes no more turns (an account whose campaigns are all dropped takes none either). */
  drop(turn: T): void {
    const i = this.accounts.findIndex((queue) => queue.includes(turn));
    if (i < 0) return;
    const queue = this.accounts[i];
    queue.splice(queue.indexOf(turn), 1);
    if (queue.length === 0) this.accounts.splice(i, 1);
  }
}
