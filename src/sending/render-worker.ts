import { parentPort, workerData } from 'node:worker_threads';
import type { CampaignRow } from '../db/schema.ts';
import { buildMessage } from './message.ts';
import { CompiledCampaigns, type MergeContact } from './render.ts';
import { TokenSigner } from './tokens.ts';
import { composeMime } from './transports/nodemailer-message.ts';
import type { OutgoingMessage } from './transports/transport.ts';

/** What the dispatcher asks the render thread for: one batch's messages. */
export interface RenderRequest {
  id: number;
  campaign: CampaignRow;
  recipients: { recipientId: number; contact: MergeContact }[];
}

/** A message, or why this recipient's message could not be rendered. */
export type RenderResult = OutgoingMessage | { renderError: string };

/** The messages, or why the campaign's content cannot be compiled at all (a Liquid syntax error). */
export type RenderResponse = { id: number; results: RenderResult[] } | { id: number; contentError: string };

export interface RenderWorkerData {
  secret: string;
  publicUrl: string;
}

// The thread the sender renders in (see message-renderer.ts). It builds each message exactly as
// the main thread would (buildMessage), with the campaign compiled once per content version, and
// composes its MIME source, so the sending thread only writes it out.
const { secret, publicUrl } = workerData as RenderWorkerData;
const signer = new TokenSigner(secret);
const compiled = new CompiledCampaigns(100);

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

parentPort!.on('message', async ({ id, campaign, recipients }: RenderRequest) => {
  let context;
  try {
    context = { campaign, compiled: compiled.of(campaign), signer, publicUrl };
  } catch (err) {
    parentPort!.postMessage({ id, contentError: messageOf(err) } satisfies RenderResponse);
    return;
  }
  // One message at a time: composing them all at once keeps every one's buffers alive together,
  // which in this thread's small young generation (message-renderer.ts) made garbage collection
  // most of its work.
  const results: RenderResult[] = [];
  for (const { recipientId, contact } of recipients) {
    try {
      const message = buildMessage(context, recipientId, contact);
      // A copy of its own, so it can be handed over rather than cloned: a small Buffer is a view
      // into a shared pool, which cloning would copy whole.
      results.push({ ...message, mime: new Uint8Array(await composeMime(message)) });
    } catch (err) {
      results.push({ renderError: messageOf(err) });
    }
  }
  const transfer = results.flatMap((r) => ('mime' in r && r.mime ? [r.mime.buffer as ArrayBuffer] : []));
  parentPort!.postMessage({ id, results } satisfies RenderResponse, transfer);
});
