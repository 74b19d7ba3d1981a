import { parentPort, workerData } from 'node:worker_threads';
import type { CampaignRow } from '../db/schema.ts';
import { buildMessage } from './message.ts';
import { CompiledCampaigns, type MergeContact } from './render.ts';
import { TokenSigner } from './tokens.ts';
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
// the main thread would (buildMessage), with the campaign compiled once per content version.
const { secret, publicUrl } = workerData as RenderWorkerData;
const signer = new TokenSigner(secret);
const compiled = new CompiledCampaigns(100);

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

parentPort!.on('message', ({ id, campaign, recipients }: RenderRequest) => {
  let context;
  try {
    context = { campaign, compiled: compiled.of(campaign), signer, publicUrl };
  } catch (err) {
    parentPort!.postMessage({ id, contentError: messageOf(err) } satisfies RenderResponse);
    return;
  }
  const results = recipients.map(({ recipientId, contact }): RenderResult => {
    try {
      return buildMessage(context, recipientId, contact);
    } catch (err) {
      return { renderError: messageOf(err) };
    }
  });
  parentPort!.postMessage({ id, results } satisfies RenderResponse);
});
