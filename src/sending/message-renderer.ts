import { Worker } from 'node:worker_threads';
import type { CampaignRow } from '../db/schema.ts';
import type DKIM from 'nodemailer/lib/dkim';
import { FairScheduler } from '../domain/shared/fair-queue.ts';
import { RateLimitedError } from '../domain/shared/errors.ts';
import { dkimSigner, type DkimKeys } from './dkim.ts';
import type { DkimSigningKey } from '../domain/domains/sending-domain.ts';
import type { MergeContact } from './render.ts';
import type { ChunkBudget, RenderRecipient, RenderRequest, RenderResponse, RenderResult, RenderWorkerData, TransactionalRenderRequest } from './render-worker.ts';
import type { TransactionalSource } from './transactional-message.ts';

export type { ChunkBudget, RenderResult };

/** The campaign's content cannot be compiled (a Liquid syntax error): no recipient's message can be made. */
export class ContentError extends Error {}

/**
 * Issue 28 H2: how the API's render thread is shared. Previews, test sends, web views and the
 * archive all render there, and web views and the archive are anyone's to request; in arrival
 * order, 40 anonymous web views made another account's preview wait 6-9 s. So requests take turns
 * by account (FairQueue, charged the milliseconds each held the thread), one on the thread at a
 * time, and an account may have `maxWaitingPerAccount` waiting: past that a request is refused at
 * once (RateLimitedError, retry after `retryAfterSeconds`) rather than queued behind work that would take
 * longer than anyone waits for a page.
 */
export interface RenderQueueOptions {
  /** ms of the thread an account may use per turn */
  quantum: number;
  maxWaitingPerAccount: number;
  retryAfterSeconds: number;
}

/** The API process's render thread (core.ts). A turn is about one heavy web view; 20 waiting at 100 ms each is 2 s of the account's own wait. */
export const API_RENDER_QUEUE: RenderQueueOptions = { quantum: 100, maxWaitingPerAccount: 20, retryAfterSeconds: 5 };

/**
 * Renders the sender's messages on a thread of their own: merge fields, signed links, and the
 * composed MIME source. Rendering cost about a quarter of the sender's CPU per message and
 * composing more than that (transport.ts), on the one thread that also drives SMTP; on a second
 * thread they run while the main one sends. The thread starts on first use and is started again
 * if it dies.
 */
export class MessageRenderer {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (r: RenderResult[]) => void; reject: (e: unknown) => void }>();
  private nextId = 1;
  /** the signer of the key last used (D23): a campaign's chunks share it, so its PEM is parsed once */
  private signer: { key: DkimSigningKey; dkim: DKIM } | null = null;
  /** with `queue` (RenderQueueOptions): requests take the thread one at a time, in their accounts' turns */
  private readonly turns: FairScheduler | null;

  /**
   * `dkimKeys`: where the keys that sign messages come from (D23); without it nothing is signed.
   * `queue`: requests of several accounts take turns (issue 28 H2); without it (the sender, which
   * takes its own turns by account: AccountRotation) each request goes to the thread as it comes.
   */
  constructor(
    private readonly options: RenderWorkerData,
    private readonly dkimKeys?: DkimKeys,
    private readonly queueOptions?: RenderQueueOptions,
  ) {
    this.turns = queueOptions ? new FairScheduler({ quantum: queueOptions.quantum, maxWaitingPerAccount: queueOptions.maxWaitingPerAccount, slots: 1, charge: 'ms' }) : null;
  }

  /**
   * One message per recipient, in the same order. A recipient whose message cannot be rendered
   * gets `{ renderError }` with the reason; one over a render limit (the message's time budget,
   * Liquid's memory count, or a part's size: RenderLimits) gets `{ renderError, limit: true }`.
   * Rejects with ContentError when the content does not compile. With a `budget`, the results may
   * cover only the first recipients (at least one): the rest were not rendered (ChunkBudget).
   */
  async render(campaign: CampaignRow, recipients: RenderRecipient[], budget?: ChunkBudget): Promise<RenderResult[]> {
    // D23: one key lookup per request. The messages are signed on this thread, as each is sent
    // (mimeOf), not on the render thread: the RSA signature is most of a signed message's cost,
    // and on the render thread, which renders the messages one after another, it made that thread
    // the sender's bottleneck (measured: 708 messages/s against a bare signing loop's 929, with
    // the machine's second core half idle).
    const key = await this.dkimKeys?.forCampaign(campaign);
    const results = await (this.turns ? this.queued(this.turns, campaign.account_id, { campaign, recipients, budget }) : this.post({ campaign, recipients, budget }));
    if (key) {
      const dkim = this.signerFor(key);
      for (const message of results) if (!('renderError' in message)) message.dkim = dkim;
    }
    return results;
  }

  /**
   * D25: transactional messages, in the same order, from one account. With `compose` each is made
   * ready to send (its MIME source composed, and DKIM-signed as it is sent when its From domain
   * has a verified key); without, it is only rendered, to check it can be. Over a budget, the
   * results may cover only the first messages, as for campaigns.
   */
  async renderTransactional(accountId: number, sources: TransactionalSource[], compose: boolean, budget?: ChunkBudget): Promise<RenderResult[]> {
    const request = { transactional: sources, compose, budget };
    const results = await (this.turns ? this.queued(this.turns, accountId, request) : this.post(request));
    if (!compose || !this.dkimKeys) return results;
    const keys = new Map<string, DkimSigningKey | undefined>();
    for (const message of results) {
      if ('renderError' in message) continue;
      const from = message.from.address.toLowerCase();
      if (!keys.has(from)) keys.set(from, await this.dkimKeys.forCampaign({ account_id: accountId, from_email: from }));
      const key = keys.get(from);
      if (key) message.dkim = this.signerFor(key);
    }
    return results;
  }

  /**
   * D25.1's render check (RenderCheck): for each message, why it cannot be rendered, or its
   * rendered subject. A message over a render limit is tried once more before it is refused: the
   * thread's first renders (its code not yet compiled, on a busy machine) can take past the time
   * budget what a second takes well within it, and an application's receipt must not be refused
   * for that. Content that is really too heavy is over the limit twice.
   */
  async checkTransactional(accountId: number, sources: TransactionalSource[]): Promise<({ error: string } | { subject: string })[]> {
    const results = await this.renderInTurns(accountId, sources);
    const again = sources.filter((_, i) => 'limit' in results[i] && results[i].limit === true);
    const retried = again.length > 0 ? await this.renderInTurns(accountId, again) : [];
    let next = 0;
    return results.map((r) => {
      const result = 'renderError' in r && r.limit === true ? retried[next++] : r;
      return 'renderError' in result ? { error: result.renderError } : { subject: result.subject };
    });
  }

  /**
   * Renders the messages a turn at a time (issue 28 H2): each request holds the thread for about
   * one turn's quantum and then queues again behind the other accounts, so a batch of 100 heavy
   * messages (up to 300 ms each) cannot keep another account's preview waiting for 30 s.
   */
  private async renderInTurns(accountId: number, sources: TransactionalSource[]): Promise<RenderResult[]> {
    const budget = { ms: this.queueOptions?.quantum ?? Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY };
    const results: RenderResult[] = [];
    while (results.length < sources.length) results.push(...(await this.renderTransactional(accountId, sources.slice(results.length), false, budget)));
    return results;
  }

  private post(request: Omit<RenderRequest, 'id'> | Omit<TransactionalRenderRequest, 'id'>): Promise<RenderResult[]> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<RenderResult[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...request });
    });
  }

  /** Waits the account's turn (issue 28 H2); RateLimitedError when the account has all it may waiting already. */
  private queued(turns: FairScheduler, accountId: number, request: Omit<RenderRequest, 'id'> | Omit<TransactionalRenderRequest, 'id'>): Promise<RenderResult[]> {
    const rendered = turns.schedule(accountId, () => this.post(request));
    if (rendered) return rendered;
    const { maxWaitingPerAccount, retryAfterSeconds } = this.queueOptions!;
    return Promise.reject(new RateLimitedError(`this account already has ${maxWaitingPerAccount} messages waiting to be rendered (the most one account may have waiting); retry after ${retryAfterSeconds} s`, retryAfterSeconds));
  }

  private signerFor(key: DkimSigningKey): DKIM {
    const held = this.signer;
    if (held && held.key.domainName === key.domainName && held.key.keySelector === key.keySelector && held.key.privateKey === key.privateKey) return held.dkim;
    this.signer = { key, dkim: dkimSigner(key) };
    return this.signer.dkim;
  }

  async close(): Promise<void> {
    // Requests still waiting their turn end too, with the reason, rather than hang (the next
    // render starts the thread again, as after a crash).
    this.turns?.drain(new Error('the render thread is closed'));
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    // Run from the sources (tests, tsx), the thread needs TypeScript loaded for it; from the
    // bundle (bin/sendwell), its code is a plain JavaScript entry beside this code.
    const entry = import.meta.url.endsWith('.ts') ? './render-worker-from-source.mjs' : './render-worker.js';
    // Its young generation is capped: rendering makes only short-lived garbage, and V8's default
    // let the thread hold about 35 MB more at peak, which the sender's 200 MB budget cannot spare.
    const worker = new Worker(new URL(entry, import.meta.url), { workerData: this.options, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    worker.unref(); // never what keeps a process alive
    worker.on('message', (response: RenderResponse) => {
      const waiting = this.pending.get(response.id);
      this.pending.delete(response.id);
      if ('contentError' in response) waiting?.reject(new ContentError(response.contentError));
      else waiting?.resolve(response.results);
    });
    const fail = (err: unknown) => {
      if (this.worker === worker) this.worker = null;
      for (const { reject } of this.pending.values()) reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the render thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
