import type DKIM from 'nodemailer/lib/dkim';

/** One message, fully rendered, for one recipient. */
export interface OutgoingMessage {
  accountId: number;
  campaignId: number | null;
  from: { name: string | null; address: string };
  to: string;
  replyTo: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  /** `<...@...>`: fixed per (campaign, recipient), so a retry or a bounce names the same message */
  messageId: string;
  /** D23: the envelope sender (MAIL FROM, where bounces go) when it is not the From address: a VERP address under BOUNCE_DOMAIN */
  returnPath?: string;
  /** D25.1: a transactional message's attachments, content in base64 */
  attachments?: { filename: string; content: string; content_type?: string | null }[];
  /** written exactly as given, never folded (List-Unsubscribe must stay on one line) */
  headers: Record<string, string>;
  /**
   * The full MIME source of all the above, when composed already. The render thread composes
   * campaign messages, so the thread that drives SMTP only writes them out. Composing was more than
   * half that thread's CPU: profiled at 20 messages in flight, it spent 758 ms per 1,000 messages,
   * 525 once the render thread composed them (and 300 with the pool handed them directly, smtp.ts).
   */
  mime?: Uint8Array;
  /**
   * D23: the DKIM signer of the From domain's verified key, when it has one; the MIME source is
   * signed with it as it is sent (mimeOf). On the sending thread only: it never crosses threads.
   */
  dkim?: DKIM;
}

/**
 * What the mail server said. `bounced`: a 5xx to RCPT or DATA (sent, and rejected).
 * `deferred`: a 4xx, or no answer at all (`transportFailure`), to be retried with backoff; or,
 * `permanent`, the transport refused this recipient before any exchange, which trying again
 * would only repeat: the recipient fails, and nothing is said about the transport.
 */
export type SendOutcome =
  | { kind: 'sent' }
  | { kind: 'bounced'; error: string }
  | { kind: 'deferred'; error: string; transportFailure: boolean; permanent?: boolean };

export interface MailTransport {
  readonly name: string;
  send(message: OutgoingMessage): Promise<SendOutcome>;
  close(): Promise<void>;
}

/** Maps a nodemailer error to an outcome: the SMTP reply code decides. */
export function outcomeOfError(err: unknown): SendOutcome {
  const e = err as { responseCode?: number; response?: string; message?: string; command?: string; code?: string };
  const error = (e.response ?? e.message ?? String(err)).slice(0, 500);
  // nodemailer refuses, before a byte is sent, an envelope it cannot write: a recipient address
  // holding CR, LF, < or > (old data may hold one, issue 14 M1). That is this recipient's failure
  // alone; counted as the transport's, 25 of them failed a whole campaign.
  if (e.code === 'EENVELOPE' && e.command === 'API' && e.message?.startsWith('Invalid recipient')) {
    return { kind: 'deferred', error, transportFailure: false, permanent: true };
  }
  // Only the answer to RCPT TO or DATA is about this recipient; a code at greeting, AUTH or MAIL FROM
  // (a 535 for a wrong password, a 421 greeting) means the transport itself is failing.
  if (typeof e.responseCode === 'number' && (e.command === 'RCPT TO' || e.command === 'DATA')) {
    if (e.responseCode >= 500) return { kind: 'bounced', error };
    if (e.responseCode >= 400) return { kind: 'deferred', error, transportFailure: false };
  }
  return { kind: 'deferred', error, transportFailure: true };
}
