import { compile as compileHtmlToText } from 'html-to-text';
import { CaptureTag, Context, Liquid, toValue, toValueSync, type Emitter, type Template } from 'liquidjs';
import type { RenderLimits } from '../config.ts';
import { LIQUID_OPTIONS } from '../domain/content/template-syntax.ts';

/**
 * The sandbox one message renders in: LiquidJS engines bounded in time, memory and output, and
 * the text part made from HTML within the same limits. What a message holds and where its links
 * go is render.ts's business.
 */

/**
 * Liquid's own count of what a message's filters, ranges and loops allocate (array elements and
 * string characters, not bytes), for the whole message: a range of this many numbers is about
 * 40 MB. It was 20 million per part.
 */
const MEMORY_LIMIT = 5_000_000;

/**
 * Everything Liquid writes for one message, top-level output and `capture` blocks together, in
 * parts' worth: output written twice (captured, then shown) counts twice, so the strings a
 * render can hold stay a few parts' worth however the template reuses them.
 */
const WRITTEN_PARTS_PER_MESSAGE = 4;

/**
 * The message is over a render limit (time, memory or size): a render error for its recipient,
 * with a plain reason, that the sender also counts toward failing the campaign early (H4).
 */
export class RenderLimitError extends Error {}

/** What one message's render may still write, shared by every emitter of that render. */
class OutputBudget {
  written = 0;
  constructor(readonly maxChars: number) {}
}

const BUDGET_REGISTER = 'sendwell:output-budget';

/**
 * An emitter that refuses to grow past `maxChars` (UTF-16 units, never more than the UTF-8 bytes,
 * so the byte check after the render can only be stricter), and charges every write to the
 * message's budget. Written the way liquidjs's own SimpleEmitter writes.
 */
class BoundedEmitter implements Emitter {
  buffer = '';

  constructor(
    private readonly budget: OutputBudget,
    private readonly maxChars: number,
    private readonly tooLarge: string,
  ) {}

  write(html: unknown): void {
    const s = stringify(html);
    this.budget.written += s.length;
    if (this.buffer.length + s.length > this.maxChars) throw new RenderLimitError(this.tooLarge);
    if (this.budget.written > this.budget.maxChars) throw new RenderLimitError('the template writes more than a message may hold');
    this.buffer += s;
  }
}

function stringify(value: unknown): string {
  const v = toValue(value);
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(stringify).join('');
  return String(v);
}

/**
 * `capture` renders into an emitter of its own, which liquidjs does not bound: captured text
 * grows unseen by the output check, so here it is bounded and charged like any output.
 */
class BoundedCaptureTag extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    const budget = ctx.getRegister<OutputBudget>(BUDGET_REGISTER);
    const emitter = new BoundedEmitter(budget, budget.maxChars, 'a captured block is larger than a message may hold');
    yield this.liquid.renderer.renderTemplates(this.templates, ctx, emitter);
    (ctx.bottom() as Record<string, unknown>)[this.variable] = emitter.buffer;
  }
}

/**
 * Merge fields are rendered by LiquidJS, sandboxed: no file system (an empty in-memory template
 * map, so `include`/`render`/`layout` find nothing), own properties only (no prototype walking),
 * no JavaScript, and limits on parse size, render time, memory and output (RenderLimits) so a
 * hostile template cannot stall a sender. Output in HTML is escaped; subject and text are plain.
 */
export const htmlEngine = new Liquid({ ...LIQUID_OPTIONS, outputEscape: 'escape' });
export const plainEngine = new Liquid(LIQUID_OPTIONS);
for (const engine of [htmlEngine, plainEngine]) engine.registerTag('capture', BoundedCaptureTag);

/** A limit error as the reason its recipient's row shows, whichever wrapping liquidjs gave it. */
function limitReason(err: unknown, budgetMs: number): string | null {
  for (let e = err as { message?: string; originalError?: unknown } | undefined; e; e = e.originalError as typeof e) {
    if (e instanceof RenderLimitError) return e.message;
    if (typeof e.message === 'string' && e.message.startsWith('template render limit exceeded')) return `the message took longer than ${budgetMs} ms to render`;
    if (typeof e.message === 'string' && e.message.startsWith('memory alloc limit exceeded')) return 'the message needs more memory to render than a message may use';
  }
  return null;
}

/**
 * One message's render: the parts share one time budget and one memory count (liquidjs's
 * limiters, carried from the first part's context to the next), and one output budget.
 */
export class MessageRender {
  private limiters: Pick<Context, 'renderLimit' | 'memoryLimit'> | null = null;
  private readonly output: OutputBudget;
  /** The end of the message's time budget (liquidjs's limiter starts its own at the first part). */
  private readonly deadline: number;

  constructor(
    private readonly scope: object,
    private readonly limits: RenderLimits,
  ) {
    this.output = new OutputBudget(limits.maxPartBytes * WRITTEN_PARTS_PER_MESSAGE);
    this.deadline = performance.now() + limits.budgetMs;
  }

  part(engine: Liquid, templates: Template[], maxChars: number, tooLarge: string): string {
    const ctx = new Context(this.scope, engine.options, { sync: true, renderLimit: this.limits.budgetMs, memoryLimit: MEMORY_LIMIT }, { liquid: engine, ...this.limiters });
    this.limiters ??= { renderLimit: ctx.renderLimit, memoryLimit: ctx.memoryLimit };
    ctx.setRegister(BUDGET_REGISTER, this.output);
    try {
      return toValueSync(engine.renderer.renderTemplates(templates, ctx, new BoundedEmitter(this.output, maxChars, tooLarge))) as string;
    } catch (err) {
      const reason = limitReason(err, this.limits.budgetMs);
      throw reason === null ? err : new RenderLimitError(reason);
    }
  }

  /**
   * D17.2: the text part made from the rendered HTML, inside the message's limits: the HTML is
   * already capped in bytes, its tags are capped here before parsing (MAX_TEXT_SOURCE_TAGS), and
   * the conversion's time counts toward the message's one budget, as a part's render does.
   */
  textFrom(html: string): string {
    if (overTextSourceTags(html)) {
      throw new RenderLimitError(`the HTML has more than ${MAX_TEXT_SOURCE_TAGS.toLocaleString('en-US')} tags, too many to make its text part from; give it a text of its own`);
    }
    const text = htmlToText(html);
    if (performance.now() > this.deadline) throw new RenderLimitError(`the message took longer than ${this.limits.budgetMs} ms to render`);
    return text;
  }
}

/**
 * D17.2: the text part made from a message's rendered HTML when the campaign has no text of its
 * own (HTML-only mail counts against the sender with spam filters). html-to-text keeps each link
 * as `words [url]` with the tracked URL, drops images (the open pixel) and markup. Nesting past
 * 64 levels is cut: its walk recurses once per level, and deeper recursion overflowed the stack.
 */
export const htmlToText = compileHtmlToText({
  wordwrap: 78,
  limits: { maxDepth: 64 },
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    // The preheader is for the inbox list; in the text body it would only repeat itself.
    { selector: 'div.sw-preheader', format: 'skip' },
    // D23's trap link is for scanners only; in the text part a person would see it.
    { selector: 'a.sw-trap', format: 'skip' },
  ],
});

/**
 * The most tags (`<x` and `</x`) an HTML part may hold for its text part to be made from it.
 * html-to-text parses with htmlparser2, whose open-element stack costs time in proportion to its
 * depth at every tag: 2 MB of unclosed tags took over a minute, stalling the render thread every
 * account shares. Tags times depth is at most this squared: about 50 ms here. A newsletter of
 * 100 KB has 2,000 to 3,000; above this the message needs a text of its own.
 */
export const MAX_TEXT_SOURCE_TAGS = 20_000;
const TAG = /<\/?[a-z]/gi;

/** Whether `html` holds more than MAX_TEXT_SOURCE_TAGS tags, counted no further than that. */
export function overTextSourceTags(html: string): boolean {
  let tags = 0;
  for (TAG.lastIndex = 0; TAG.test(html); ) if (++tags > MAX_TEXT_SOURCE_TAGS) return true;
  return false;
}
