import { parentPort } from 'node:worker_threads';
import { compileContent } from './compile-content.ts';
import type { ContentSource } from './content.ts';
import { campaignWarnings, type ContentWarning } from './content-checks.ts';
import { ValidationError } from '../shared/errors.ts';
import { checkTemplateSyntax, mergeFieldsIn } from './template-syntax.ts';

/**
 * What the thread is asked (content-compiler.ts): a compile, or the content checks of a campaign's
 * compiled HTMLs, which run here too (issue 28 C1) so they share the compile limit and turns.
 */
export type CompileRequest =
  | {
      id: number;
      kind: 'compile';
      content: ContentSource;
      layout: ContentSource | null;
      field: string;
      /** D17.4 on this thread (issue 28): the source's Liquid is parsed before compiling, naming `field`, and the result's when it is at most `resultUpToBytes` (a larger one is refused for its size) */
      liquidCheck?: { resultUpToBytes: number };
    }
  | {
      id: number;
      kind: 'checks';
      htmls: (string | null)[];
      text: string | null;
      /** the campaign's other Liquid (subject, preheader, variants' subjects and texts), read for D26.7's merge fields only */
      mergeSources: (string | null)[];
    };

/**
 * The HTML or warnings, or the 400 message of content that does not compile, or an unexpected
 * failure; `ms` is the thread's time for it, which the caller charges to the account (issue 28 H1).
 */
export type CompileResponse = { id: number; ms: number } & ({ html: string } | ContentChecks | { invalid: string } | { failed: string });

/** The content warnings, and the merge fields the content uses (D26.7), which the caller looks up in the account's custom fields. */
export interface ContentChecks {
  warnings: ContentWarning[];
  mergeFields: string[];
}

/** Sent once the thread has loaded its libraries: the time limit counts compiling, not starting. */
export const READY = 'ready';

parentPort!.on('message', async (request: CompileRequest) => {
  const started = performance.now();
  const ms = () => performance.now() - started;
  try {
    if (request.kind === 'checks') {
      const warnings = campaignWarnings(request.htmls, request.text);
      const mergeFields = mergeFieldsIn([...request.htmls, request.text, ...request.mergeSources]);
      parentPort!.postMessage({ id: request.id, ms: ms(), warnings, mergeFields } satisfies CompileResponse);
      return;
    }
    if (request.liquidCheck) checkTemplateSyntax({ [request.field]: request.content.body });
    const html = await compileContent(request.content, request.layout, request.field);
    // D17.4 on what compiling made (a layout's Liquid included): a 170 KB draft's parse held the
    // HTTP thread for up to 46 ms (issue 28's noisy neighbour); here it is in the account's turn.
    if (request.liquidCheck && Buffer.byteLength(html, 'utf8') <= request.liquidCheck.resultUpToBytes) {
      checkTemplateSyntax({ [`${request.field} (compiled with its layout)`]: html });
    }
    parentPort!.postMessage({ id: request.id, ms: ms(), html } satisfies CompileResponse);
  } catch (err) {
    const message = String((err as Error).message ?? err);
    parentPort!.postMessage((err instanceof ValidationError ? { id: request.id, ms: ms(), invalid: message } : { id: request.id, ms: ms(), failed: message }) satisfies CompileResponse);
  }
});

parentPort!.postMessage(READY);
