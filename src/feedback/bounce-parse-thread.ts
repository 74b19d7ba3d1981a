import type { MessagePort } from 'node:worker_threads';

/** One message for a bounce parse thread (bounce-parser.ts): its bytes, and a port to say the parse has begun. */
export interface BounceParseTask {
  source: Uint8Array;
  started: MessagePort;
}

/** What a parse thread posts once it has loaded mailparser and parsed a sample. */
export const WARM = 'bounce-parse-thread-warm';
