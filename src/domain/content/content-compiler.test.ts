import { afterAll, describe, expect, it } from 'vitest';
import { RateLimitedError, ValidationError } from '../shared/errors.ts';
import { COMPILE_QUEUE_LIMITS, ContentCompiler } from './content-compiler.ts';

// D22: compiling runs on a thread of its own with a time limit; a compile past it is a 400, and the thread is replaced.
describe('ContentCompiler', () => {
  const quick = new ContentCompiler();
  const strict = new ContentCompiler(1);
  afterAll(async () => {
    await quick.close();
    await strict.close();
  });

  it('compiles on its thread, and answers an MJML error as a ValidationError naming the line', async () => {
    expect(await quick.compile(1, { format: 'markdown', body: '# Hi {{ first_name }}' }, null, 'html')).toMatch(/<h1[^>]*>Hi \{\{ first_name \}\}<\/h1>/);
    const err = await quick.compile(1, { format: 'mjml', body: '<mjml>\n<mj-body>\n<mj-nope/>\n</mj-body>\n</mjml>' }, null, 'html').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/^html line 3 has an MJML error/);
  });

  it('D17.4 on the thread (issue 28): asked to, it refuses a source whose Liquid does not parse, naming the field, before compiling it', async () => {
    const unclosed = { format: 'mjml' as const, body: '<mjml><mj-body><mj-nope>{% if first_name %}</mj-nope></mj-body></mjml>' };
    const err = await quick.compile(1, unclosed, null, 'variants[0].html', { resultUpToBytes: 256 * 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/^variants\[0\]\.html has a Liquid syntax error: /);
    // Not asked to: the MJML error is what it meets.
    expect(String(await quick.compile(1, unclosed, null, 'html').catch((e: unknown) => e))).toMatch(/has an MJML error/);
  });

  it('D17.4 on the thread (issue 28): asked to, it refuses a result whose Liquid does not parse, naming the field compiled with its layout; a result over the size is left to the size check', async () => {
    // A layout saved before its Liquid was checked: only the two together are seen here.
    const layout = { format: 'html' as const, body: '<html><body>{% if first_name %}{{ content }}</body></html>' };
    const body = { format: 'html' as const, body: '<p>Hello</p>' };
    const err = await quick.compile(1, body, layout, 'html', { resultUpToBytes: 256 * 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/^html \(compiled with its layout\) has a Liquid syntax error: /);
    expect(await quick.compile(1, body, layout, 'html', { resultUpToBytes: 10 })).toMatch(/Hello/);
  });

  it('refuses a compile past the time limit with a 400, then works on a new thread', async () => {
    const big = '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(300) + '</mj-body></mjml>';
    const err = await strict.compile(1, { format: 'mjml', body: big }, null, 'variants[1].html').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe('variants[1].html: the content took too long to compile (over 0.001 s); make it smaller');
    // The stuck thread was ended; the next compile starts a new one, which answers (here the same 400), rather than hanging or failing as "thread exited".
    const again = await strict.compile(1, { format: 'mjml', body: big }, null, 'html').catch((e: unknown) => e);
    expect((again as Error).message).toBe('html: the content took too long to compile (over 0.001 s); make it smaller');
  });

  it('takes requests one at a time: a compile queued behind slow ones is judged by its own time, not theirs', { timeout: 90_000 }, async () => {
    // 2 s of limit each; thirty small compiles (two accounts, fifteen each, within the per-account
    // queue) take longer than one limit in all, while each takes a small part of it. Small ones, so
    // that a slow or busy machine, which slows each compile and the queue alike, stays far under
    // the limit per compile (eight of 0.4 s timed out the whole test at 30 s on a busy machine).
    const paced = new ContentCompiler(2_000);
    try {
      // The thread ready first: loading its libraries is not a queued compile's own time.
      await paced.compile(1, { format: 'markdown', body: 'warm' }, null, 'html');
      const body = '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(50) + '</mj-body></mjml>';
      const compiles = Array.from({ length: 30 }, (_, i) => paced.compile(1 + (i % 2), { format: 'mjml', body }, null, 'html'));
      const results = await Promise.allSettled(compiles);
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual(Array(30).fill('fulfilled'));
    } finally {
      await paced.close();
    }
  });

  it('issue 28 H1: on one thread, takes accounts in turns, so one account queued behind another large one waits for one of its compiles, not all', async () => {
    const fair = new ContentCompiler(undefined, 1);
    try {
      const large = { format: 'mjml' as const, body: '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(300) + '</mj-body></mjml>' };
      const order: string[] = [];
      const done = (name: string) => (r: unknown) => (order.push(name), r);
      const a = [1, 2, 3].map((n) => fair.compile(1, large, null, 'html').then(done(`A${n}`)));
      const b = fair.compile(2, { format: 'markdown', body: '# small' }, null, 'html').then(done('B'));
      await Promise.all([...a, b]);
      expect(order).toEqual(['A1', 'B', 'A2', 'A3']);
    } finally {
      await fair.close();
    }
  });

  it('issue 28 (noisy neighbour): on two threads, one account runs one compile at a time, so another account never waits for it', async () => {
    const two = new ContentCompiler(undefined, 2);
    try {
      // Both threads ready first: loading a thread's libraries is not what is measured here.
      await Promise.all([two.compile(1, { format: 'markdown', body: 'a' }, null, 'html'), two.compile(2, { format: 'markdown', body: 'b' }, null, 'html')]);
      expect((two as unknown as { threads: unknown[] }).threads).toHaveLength(2);
      const large = { format: 'mjml' as const, body: '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(600) + '</mj-body></mjml>' };
      const order: string[] = [];
      const done = (name: string) => (r: unknown) => (order.push(name), r);
      const a = [1, 2, 3, 4].map((n) => two.compile(1, large, null, 'html').then(done(`A${n}`)));
      const b = two.compile(2, { format: 'markdown', body: '# small' }, null, 'html').then(done('B'));
      await Promise.all([...a, b]);
      // A's four ran one after another on one thread; B went to the other at once.
      expect(order).toEqual(['B', 'A1', 'A2', 'A3', 'A4']);
    } finally {
      await two.close();
    }
  });

  it(`issue 28 H1: refuses an account's compile past ${COMPILE_QUEUE_LIMITS.waitingPerAccount} waiting with a 429 error naming the limit, and still takes another account's`, async () => {
    const capped = new ContentCompiler();
    try {
      const source = { format: 'markdown' as const, body: 'x' };
      const queued = Array.from({ length: COMPILE_QUEUE_LIMITS.waitingPerAccount }, () => capped.compile(1, source, null, 'html'));
      const refused = await capped.compile(1, source, null, 'html').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect((refused as RateLimitedError).code).toBe('RATE_LIMIT_EXCEEDED');
      expect((refused as Error).message).toBe(`html: this account already has ${COMPILE_QUEUE_LIMITS.waitingPerAccount} compiles and checks waiting, the most it may queue; retry after the number of seconds in Retry-After`);
      expect((refused as RateLimitedError).retryAfterSeconds).toBe(5);
      expect(await capped.compile(2, source, null, 'html')).toMatch(/<p>x<\/p>/);
      expect((await Promise.all(queued)).length).toBe(COMPILE_QUEUE_LIMITS.waitingPerAccount);
    } finally {
      await capped.close();
    }
  });

  it('issue 28 C1: works out content checks on the thread, and refuses checks past the time limit with a 400', async () => {
    const checked = await quick.checks(1, ['<img src="a.png"> {{ unsubscribe_url }}'], 't {{ frist_name }}', ['{{ event.x }}']);
    expect(checked.warnings.map((w) => w.code)).toEqual(['IMAGE_ONLY', 'MISSING_ALT']);
    // D26.7: the merge fields of the HTML, the text and the other sources, for the caller to look up.
    expect(checked.mergeFields).toEqual(['unsubscribe_url', 'frist_name', 'event.x']);
    const err = await strict.checks(1, ['<p>x</p>'.repeat(20_000)], 't').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe('checks: the content took too long to check (over 0.001 s); make it smaller');
  });

  it('fails every request in progress and waiting, of every account, when its thread dies, and starts a new one for the next', async () => {
    const dying = new ContentCompiler(undefined, 1);
    try {
      await dying.compile(1, { format: 'markdown', body: 'warm' }, null, 'html');
      const body = '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(300) + '</mj-body></mjml>';
      const queued = [dying.compile(1, { format: 'mjml', body }, null, 'html'), dying.compile(1, { format: 'mjml', body }, null, 'html'), dying.checks(2, ['<p>x</p>'], null)];
      // The thread dies as an out-of-memory thread would: from outside the compiler.
      await (dying as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0].worker.terminate();
      const results = await Promise.allSettled(queued);
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual(Array(3).fill('Error: the compile thread exited (code 1)'));
      expect(await dying.compile(2, { format: 'markdown', body: 'again' }, null, 'html')).toMatch(/<p>again<\/p>/);
    } finally {
      await dying.close();
    }
  });
});
