import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors.ts';
import { ContentCompiler } from './content-compiler.ts';

// D22: compiling runs on a thread of its own with a time limit; a compile past it is a 400, and the thread is replaced.
describe('ContentCompiler', () => {
  const quick = new ContentCompiler();
  const strict = new ContentCompiler(1);
  afterAll(async () => {
    await quick.close();
    await strict.close();
  });

  it('compiles on its thread, and answers an MJML error as a ValidationError naming the line', async () => {
    expect(await quick.compile({ format: 'markdown', body: '# Hi {{ first_name }}' }, null, 'html')).toMatch(/<h1[^>]*>Hi \{\{ first_name \}\}<\/h1>/);
    const err = await quick.compile({ format: 'mjml', body: '<mjml>\n<mj-body>\n<mj-nope/>\n</mj-body>\n</mjml>' }, null, 'html').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/^html line 3 has an MJML error/);
  });

  it('refuses a compile past the time limit with a 400, then works on a new thread', async () => {
    const big = '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(300) + '</mj-body></mjml>';
    const err = await strict.compile({ format: 'mjml', body: big }, null, 'variants[1].html').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe('variants[1].html: the content took too long to compile (over 0.001 s); make it smaller');
    // The stuck thread was ended; the next compile starts a new one, which answers (here the same 400), rather than hanging or failing as "thread exited".
    const again = await strict.compile({ format: 'mjml', body: big }, null, 'html').catch((e: unknown) => e);
    expect((again as Error).message).toBe('html: the content took too long to compile (over 0.001 s); make it smaller');
  });

  it('takes requests one at a time: a compile queued behind slow ones is judged by its own time, not theirs', async () => {
    // 2 s of limit each; eight compiles of about 0.4 s queued together take longer than one limit in all.
    const paced = new ContentCompiler(2_000);
    try {
      const body = '<mjml><mj-body>' + '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>'.repeat(400) + '</mj-body></mjml>';
      const results = await Promise.allSettled([1, 2, 3, 4, 5, 6, 7, 8].map(() => paced.compile({ format: 'mjml', body }, null, 'html')));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill('fulfilled'));
    } finally {
      await paced.close();
    }
  });
});
