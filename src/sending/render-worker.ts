import { parentPort, workerData } from 'node:worker_threads';
import type { CampaignRow } from '../db/schema.ts';
import { buildMessage, type MessageContext, type MessageRecipient, type Rendering } from './message.ts';
import { variantContent, variantsOf } from '../domain/campaigns/ab-test.ts';
import { CompiledCampaigns, type MergeContact, type RenderLimits } from './render.ts';
import { RenderLimitError } from './liquid-sandbox.ts';
import { TokenSigner } from '../domain/shared/tokens.ts';
import { composeMime } from './transports/nodemailer-message.ts';
import type { OutgoingMessage } from './transports/transport.ts';
import { buildTransactional, type TransactionalSource } from './transactional-message.ts';

/** What the dispatcher asks the render thread for: one batch's messages. */
export interface RenderRequest {
  id: number;
  campaign: CampaignRow;
  /** a campaign recipient row, or a test send (issue 14 H3: test sends render here too) */
  recipients: RenderRecipient[];
  /** when given, the thread may stop early: see ChunkBudget */
  budget?: ChunkBudget;
}

/**
 * D25: transactional messages to render (and, with `compose`, to compose for sending); the API
 * asks without `compose` to check that a message renders before it answers.
 */
export interface TransactionalRenderRequest {
  id: number;
  transactional: TransactionalSource[];
  compose: boolean;
  budget?: ChunkBudget;
}

/** Whom one message is for; `variant` is the recipient row's A/B variant (D23), null or absent for the base content. */
export interface RenderRecipient {
  recipientId: MessageRecipient;
  contact: MergeContact;
  variant?: number | null;
  /** D22: `mail` (the default) unless the message is only looked at: see Rendering */
  rendering?: Rendering;
}

/**
 * What one request may take of the render thread (issue 14 H4, H5): once the messages rendered
 * so far took `ms` or hold `bytes` of MIME source, the rest are left unrendered, so the results
 * cover only the first recipients (always at least one). The sender asks for a chunk per account
 * turn with it, so one account's heavy messages cannot hold the thread for long, and the chunk
 * handed to the sending thread stays within a few megabytes.
 */
export interface ChunkBudget {
  ms: number;
  bytes: number;
}

/**
 * A message, or why this recipient's message could not be rendered; `limit` when it was over a
 * render limit (time, memory, size: RenderLimits), which the sender counts toward failing the
 * campaign early.
 */
export type RenderResult = OutgoingMessage | { renderError: string; limit?: boolean };

/** The messages, or why the campaign's content cannot be compiled at all (a Liquid syntax error). */
export type RenderResponse = { id: number; results: RenderResult[] } | { id: number; contentError: string };

export interface RenderWorkerData {
  secret: string;
  publicUrl: string;
  /** D23 BOUNCE_DOMAIN, or null: see MessageContext */
  bounceDomain: string | null;
  /** default: DEFAULT_RENDER_LIMITS */
  limits?: RenderLimits;
}

// The thread the sender renders in (see message-renderer.ts). It builds each message exactly as
// the main thread would (buildMessage), with the campaign compiled once per content version, and
// composes its MIME source, so the sending thread only writes it out.
const { secret, publicUrl, bounceDomain, limits } = workerData as RenderWorkerData;
const signer = new TokenSigner(secret);
const compiled = new CompiledCampaigns(100, limits);

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** D25: each transactional message rendered (and composed, when it is to be sent), within the budget. */
async function renderTransactional({ id, transactional, compose, budget }: TransactionalRenderRequest): Promise<void> {
  const results: RenderResult[] = [];
  const started = performance.now();
  let bytes = 0;
  for (const source of transactional) {
    if (budget && results.length > 0 && (bytes >= budget.bytes || performance.now() - started >= budget.ms)) break;
    try {
      const message = buildTransactional(source, signer, publicUrl, bounceDomain, limits);
      if (!compose) {
        results.push(message);
        continue;
      }
      const mime = message.mime ?? new Uint8Array(await composeMime(message));
      bytes += mime.byteLength;
      // The attachments are in the MIME source now: they need not cross back a second time.
      results.push({ ...message, attachments: undefined, mime });
    } catch (err) {
      results.push(err instanceof RenderLimitError ? { renderError: err.message, limit: true } : { renderError: messageOf(err) });
    }
  }
  const transfer = results.flatMap((r) => ('mime' in r && r.mime ? [r.mime.buffer as ArrayBuffer] : []));
  parentPort!.postMessage({ id, results } satisfies RenderResponse, compose ? transfer : []);
}

parentPort!.on('message', async (request: RenderRequest | TransactionalRenderRequest) => {
  if ('transactional' in request) return renderTransactional(request);
  const { id, campaign, recipients, budget } = request;
  // D23: one context per variant, its fields (the sender name too) over the base.
  const contexts = new Map<number | null, MessageContext>();
  const contextFor = (variant: number | null): MessageContext => {
    let context = contexts.get(variant);
    if (!context) {
      const content = variant === null ? campaign : variantContent(campaign, variantsOf(campaign)?.[variant]);
      context = { campaign: content, compiled: compiled.of(campaign, variant), signer, publicUrl, bounceDomain };
      contexts.set(variant, context);
    }
    return context;
  };
  try {
    contextFor(null);
  } catch (err) {
    parentPort!.postMessage({ id, contentError: messageOf(err) } satisfies RenderResponse);
    return;
  }
  // One message at a time: composing them all at once keeps every one's buffers alive together,
  // which in this thread's small young generation (message-renderer.ts) made garbage collection
  // most of its work.
  const results: RenderResult[] = [];
  const started = performance.now();
  let bytes = 0;
  for (const { recipientId, contact, variant, rendering } of recipients) {
    if (budget && results.length > 0 && (bytes >= budget.bytes || performance.now() - started >= budget.ms)) break;
    try {
      const message = buildMessage(contextFor(variant ?? null), recipientId, contact, rendering);
      // D22: a message only looked at (a preview, the web view, the archive) is never composed.
      if (rendering && rendering !== 'mail') {
        results.push(message);
        continue;
      }
      // A copy of its own, so it can be handed over rather than cloned: a small Buffer is a view
      // into a shared pool, which cloning would copy whole.
      const mime = new Uint8Array(await composeMime(message));
      // The parts cross to the sending thread too (the dev inbox keeps them), copied.
      bytes += mime.byteLength + (message.html?.length ?? 0) + (message.text?.length ?? 0);
      results.push({ ...message, mime });
    } catch (err) {
      results.push(err instanceof RenderLimitError ? { renderError: err.message, limit: true } : { renderError: messageOf(err) });
    }
  }
  const transfer = results.flatMap((r) => ('mime' in r && r.mime ? [r.mime.buffer as ArrayBuffer] : []));
  parentPort!.postMessage({ id, results } satisfies RenderResponse, transfer);
});
