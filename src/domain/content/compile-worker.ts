import { parentPort } from 'node:worker_threads';
import { compileContent, type ContentSource } from './compile-content.ts';
import { ValidationError } from '../shared/errors.ts';

/** One compile asked of the thread (content-compiler.ts). */
export interface CompileRequest {
  id: number;
  content: ContentSource;
  layout: ContentSource | null;
  field: string;
}

/** The HTML, or the 400 message of content that does not compile, or an unexpected failure. */
export type CompileResponse = { id: number; html: string } | { id: number; invalid: string } | { id: number; failed: string };

/** Sent once the thread has loaded its libraries: the time limit counts compiling, not starting. */
export const READY = 'ready';

parentPort!.on('message', async (request: CompileRequest) => {
  try {
    const html = await compileContent(request.content, request.layout, request.field);
    parentPort!.postMessage({ id: request.id, html } satisfies CompileResponse);
  } catch (err) {
    const message = String((err as Error).message ?? err);
    parentPort!.postMessage((err instanceof ValidationError ? { id: request.id, invalid: message } : { id: request.id, failed: message }) satisfies CompileResponse);
  }
});

parentPort!.postMessage(READY);
