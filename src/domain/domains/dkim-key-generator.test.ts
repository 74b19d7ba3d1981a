import { describe, expect, it } from 'vitest';
import { DKIM_KEYS_WAITING_PER_ACCOUNT, DkimKeyGenerator, KeyQueueFullError, type DkimKeyPair } from './dkim-key-generator.ts';

/** A generator whose keys are made only when the test says, so what runs when is visible. */
function controlled() {
  const running: { finish(): void; fail(err: Error): void }[] = [];
  let made = 0;
  const generator = new DkimKeyGenerator(
    () =>
      new Promise<DkimKeyPair>((resolve, reject) => {
        const n = ++made;
        running.push({ finish: () => resolve({ publicKey: Buffer.from([n]), privateKey: `key ${n}` }), fail: reject });
      }),
  );
  return { generator, running };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('DkimKeyGenerator (issue 28 M1)', () => {
  it('makes one key at a time, and accounts take turns', async () => {
    const { generator, running } = controlled();
    const order: string[] = [];
    const ask = (account: string) => generator.generate(account).then(() => order.push(account));
    const all = [ask('A'), ask('A'), ask('A'), ask('B'), ask('A'), ask('C')];
    for (let i = 0; i < 6; i++) {
      await tick();
      expect(running.length).toBe(i + 1); // the next one starts only once the last is done
      running[i].finish();
    }
    await Promise.all(all);
    expect(order).toEqual(['A', 'A', 'B', 'C', 'A', 'A']);
  });

  it(`refuses past ${DKIM_KEYS_WAITING_PER_ACCOUNT} waiting for one account with a Retry-After, and others still queue`, async () => {
    const { generator, running } = controlled();
    const accepted = Array.from({ length: DKIM_KEYS_WAITING_PER_ACCOUNT + 1 }, () => generator.generate('A')); // one running, ten waiting
    const refused = generator.generate('A');
    await expect(refused).rejects.toBeInstanceOf(KeyQueueFullError);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: expect.any(Number) });
    expect(((await refused.catch((e) => e)) as KeyQueueFullError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const other = generator.generate('B');
    for (let i = 0; running.length > i; i++) {
      running[i].finish();
      await tick();
    }
    await Promise.all([...accepted, other]);
  });

  it("a failed key fails its own request only; the next one is made", async () => {
    const { generator, running } = controlled();
    const first = generator.generate('A');
    const second = generator.generate('B');
    await tick();
    running[0].fail(new Error('no entropy'));
    await expect(first).rejects.toThrow('no entropy');
    await tick();
    running[1].finish();
    await expect(second).resolves.toMatchObject({ privateKey: 'key 2' });
  });
});
