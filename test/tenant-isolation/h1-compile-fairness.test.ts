/**
 * Issue 28 H1: one compile thread serves every account. It took requests in arrival order, so
 * four large MJML drafts of one account made another account's small save wait for all four. It
 * now takes accounts in turns (FairQueue), charging each the thread's time for its compiles: the
 * small save waits for at most the one large compile in progress. Asserted by order, not time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { sendable, tenant, type Tenant } from '../sending/send-helpers.ts';
import { COMPILE_QUEUE_LIMITS } from '../../src/domain/content/content-compiler.ts';

let server: TestServer;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  // The HTTP share (REQUESTS_PER_ACCOUNT, 4 on SQLite) now holds an account's flood of saves back
  // before they reach the compile queue; it is opened wide here so the compile queue's own cap,
  // which an operator's larger share and the sender's snapshots still reach, is what is tested.
  server = await startTestServer({ REQUESTS_PER_ACCOUNT: '100' });
  a = await tenant(server);
  b = await tenant(server);
});
afterAll(async () => {
  await server?.close();
});

/** MJML of `sections` sections, 300 bytes each: 500 are about 150 KB, a second or more of the compile thread. */
const mjml = (n: number, sections = 500) =>
  '<mjml><mj-body>' +
  Array.from({ length: sections }, (_, i) => `<mj-section><mj-column><mj-text>Draft ${n}, paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(8)}</mj-text></mj-column></mj-section>`).join('') +
  '</mj-body></mjml>';

/**
 * Three large compiles of A (one in progress, two waiting), and more small ones of A than may wait
 * besides. Resolves once one is refused: A then has as many waiting as it may, behind a second or
 * more of work (requests on separate connections may arrive in any order, so which one is refused
 * is not known).
 */
async function fillQueueOfA() {
  const slow = [0, 1, 2].map((n) => a.call('POST', '/api/v1/campaigns', { name: `large ${n}`, subject: 's', format: 'mjml', html: mjml(n) }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const flood = Array.from({ length: COMPILE_QUEUE_LIMITS.waitingPerAccount + 5 }, (_, n) => a.call('POST', '/api/v1/campaigns', { name: `small ${n}`, subject: 's', format: 'markdown', html: 'x' }));
  const refused = await Promise.race([...flood.map((res) => res.then((r) => (r.status === 429 ? r : new Promise<never>(() => {})))), Promise.all(flood).then(() => null)]);
  expect(refused?.status).toBe(429);
  /** every save of A answered: the large ones saved, each small one saved or refused */
  const settled = async () => {
    for (const res of await Promise.all(slow)) expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    for (const res of await Promise.all(flood)) expect([200, 429]).toContain(res.status);
  };
  return { refused: refused!, settled };
}

describe('H1: the compile thread takes accounts in turns', () => {
  it("H1: another account's small save, sent after four large drafts, completes before the second of them", async () => {
    const order: string[] = [];
    const save = (who: Tenant, name: string, body: Record<string, unknown>) =>
      who.call('POST', '/api/v1/campaigns', { name, subject: 's', ...body }).then((res) => (order.push(name), res));
    const drafts = [1, 2, 3, 4].map((n) => save(a, `A${n}`, { format: 'mjml', html: mjml(n) }));
    // B's save comes once A's four are queued (their bodies are read and checked in a few ms each).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const small = save(b, 'B', { format: 'markdown', html: '# A small newsletter' });
    const results = await Promise.all([...drafts, small]);

    for (const res of results) expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    const firstOfA = order.findIndex((name) => name.startsWith('A'));
    // B waited for the one compile of A in progress at most, not for A's queue.
    expect(order.indexOf('B')).toBeLessThanOrEqual(firstOfA + 1);
    expect(order.filter((name) => name.startsWith('A'))).toHaveLength(4);
  });

  it(`H1: past ${COMPILE_QUEUE_LIMITS.waitingPerAccount} compiles waiting, an account's save is refused with 429 RATE_LIMIT_EXCEEDED and Retry-After, and another account's save still goes through`, async () => {
    const { refused, settled } = await fillQueueOfA();
    const other = await b.call('POST', '/api/v1/campaigns', { name: 'ordinary', subject: 's', format: 'markdown', html: 'hello' });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toBe(`html: this account already has ${COMPILE_QUEUE_LIMITS.waitingPerAccount} compiles and checks waiting, the most it may queue; retry after the number of seconds in Retry-After`);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.retryAfter).toBe(5);
    await settled();
  });

  it("H1: a due campaign of an account with a full compile queue starts on a later tick, and another account's due campaign starts now", async () => {
    const due = async (who: Tenant, name: string) => {
      const list = await who.list(`due ${name}`);
      await who.contact({ email: `${name}@example.test`, list_id: list });
      const c = await who.campaign(sendable([list], { name }));
      const res = await who.call('POST', `/api/v1/campaigns/${c.id}/schedule`, { scheduled_at: new Date(Date.now() + 3600_000).toISOString().slice(0, 19) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return c.id as number;
    };
    const [dueA, dueB] = [await due(a, 'due-a'), await due(b, 'due-b')];
    await server.db.updateTable('campaigns').set({ scheduled_at: new Date(Date.now() - 1000).toISOString() }).where('id', 'in', [dueA, dueB]).execute();

    const { settled } = await fillQueueOfA();
    expect(await server.core.campaignLifecycle.startDueCampaigns(new Date().toISOString())).toEqual([dueB]);
    expect((await a.getCampaign(dueA)).status).toBe('SCHEDULED');
    await settled();
    expect(await server.core.campaignLifecycle.startDueCampaigns(new Date().toISOString())).toEqual([dueA]);
  });
});
