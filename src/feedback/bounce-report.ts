import type { AddressObject, ParsedMail } from 'mailparser';
import { emailKey } from '../domain/shared/email-address.ts';

/**
 * What a message that came back by mail says (D23): a delivery status notification (RFC 3464)
 * with a permanent failure (5.x.x), one with only delays or successes (4.x.x, 2.x.x: nothing to
 * record), an ARF complaint (RFC 5965), or nothing this install can read.
 */
export type BounceReport =
  | { kind: 'hard-bounce'; status: string }
  | { kind: 'no-failure'; status: string }
  | { kind: 'complaint'; feedbackType: string }
  | { kind: 'malformed'; reason: string };

/** A message that came back, read: its report, and what names the message it is about. */
export interface BounceMessage {
  report: BounceReport;
  /** X-Original-To, Delivered-To and To, in that order: where a mailbox's copy says it was sent (lower-cased) */
  addressedTo: string[];
  /** the Message-ID of the original message the report carries (message/rfc822 or text/rfc822-headers) */
  originalMessageId: string | null;
  /** who sent the report, as a mailbox's copy says: Return-Path (written by the mailbox's own server), else From (lower-cased) */
  sender: string | null;
}

/** A block of `Name: value` fields, as RFC 3464 and RFC 5965 reports are written: names lower-cased, folded lines joined. */
export function readFields(block: string): Map<string, string> {
  const fields = new Map<string, string>();
  let last: string | null = null;
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && last !== null) {
      fields.set(last, `${fields.get(last)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    // The first of a repeated field counts, as a mail header's would.
    if (!fields.has(last)) fields.set(last, line.slice(colon + 1).trim());
  }
  return fields;
}

/** A message/delivery-status body: the per-message block, then one block per recipient, separated by blank lines. */
function recipientBlocks(body: string): Map<string, string>[] {
  const blocks = body.split(/\r?\n[ \t]*\r?\n/).map(readFields);
  return blocks.slice(1).filter((b) => b.has('status') || b.has('action'));
}

/** An RFC 3463 status code at the start of a Status field (`5.1.1`, `5.1.1 (user unknown)`). */
const STATUS = /^([245])\.\d{1,3}\.\d{1,3}\b/;

/** The Message-ID header of the original message a report carries (message/rfc822 or text/rfc822-headers). */
function findOriginalMessageId(parsed: ParsedMail): string | null {
  for (const part of parsed.attachments) {
    if (!/^(message\/(rfc822|global)|text\/rfc822-headers|message\/global-headers)$/.test(part.contentType)) continue;
    const source = part.content.toString('utf8');
    const headers = source.slice(0, source.search(/\r?\n\r?\n|$/));
    const id = readFields(headers).get('message-id');
    if (id) return id;
  }
  return null;
}

function readDeliveryStatus(body: string): BounceReport {
  const statuses = recipientBlocks(body).flatMap((b) => {
    const m = STATUS.exec(b.get('status') ?? '');
    return m ? [{ status: m[0], failed: m[1] === '5' && (b.get('action') ?? 'failed').toLowerCase() === 'failed' }] : [];
  });
  if (statuses.length === 0) return { kind: 'malformed', reason: 'the delivery status names no recipient with a Status' };
  const failure = statuses.find((s) => s.failed);
  return failure ? { kind: 'hard-bounce', status: failure.status } : { kind: 'no-failure', status: statuses[0].status };
}

/** Feedback types that report no complaint: RFC 6650's `not-spam` ("this was not spam after all"). */
const NOT_COMPLAINTS = new Set(['not-spam']);

function readFeedbackReport(body: string): BounceReport {
  const feedbackType = readFields(body).get('feedback-type')?.toLowerCase();
  if (!feedbackType) return { kind: 'malformed', reason: 'the feedback report has no Feedback-Type' };
  if (NOT_COMPLAINTS.has(feedbackType)) return { kind: 'no-failure', status: feedbackType };
  return { kind: 'complaint', feedbackType };
}

/** What report a parsed message is; anything but a multipart/report of these two kinds is malformed here. */
export function readBounceReport(parsed: ParsedMail): BounceReport {
  const type = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (type?.value?.toLowerCase() !== 'multipart/report') return { kind: 'malformed', reason: 'not a multipart/report' };
  const reportType = type.params?.['report-type']?.toLowerCase();
  const partType = reportType === 'delivery-status' ? /^message\/(global-)?delivery-status$/ : reportType === 'feedback-report' ? /^message\/feedback-report$/ : null;
  if (!partType) return { kind: 'malformed', reason: `report-type "${reportType ?? ''}" is neither delivery-status nor feedback-report` };
  const part = parsed.attachments.find((a) => partType.test(a.contentType));
  if (!part) return { kind: 'malformed', reason: `no message/${reportType} part` };
  const body = part.content.toString('utf8');
  return reportType === 'delivery-status' ? readDeliveryStatus(body) : readFeedbackReport(body);
}

/** The addresses of the headers a delivered copy names its recipient by, in order of trust. */
function addressedTo(parsed: ParsedMail): string[] {
  const found: string[] = [];
  // mailparser gives Delivered-To (and To) as address objects, X-Original-To as text.
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === 'string') found.push(value.trim().replace(/^<|>$/g, ''));
    else if (value && typeof value === 'object' && Array.isArray((value as AddressObject).value)) {
      for (const a of (value as AddressObject).value) if (a.address) found.push(a.address);
    }
  };
  for (const name of ['x-original-to', 'delivered-to', 'to']) collect(parsed.headers.get(name));
  return found.map(emailKey);
}

/** The envelope sender's address a delivered copy carries (Return-Path), else its From: who sent the report, for a mailbox's copy. */
function senderOf(parsed: ParsedMail): string | null {
  const returnPath = parsed.headers.get('return-path');
  const text = typeof returnPath === 'string' ? returnPath : (returnPath as AddressObject | undefined)?.value?.[0]?.address;
  const address = text?.trim().replace(/^<|>$/g, '') || parsed.from?.value[0]?.address || '';
  return address === '' ? null : emailKey(address);
}

/**
 * Parses a message (at most the receiver's size limit) and reads its report; a message mailparser
 * cannot read is malformed. The report parts stay attachments (keepDeliveryStatus), and nothing is
 * made for display (no HTML to text, no links). No time limit here: it runs on a bounce parse
 * thread (bounce-parser.ts), which is ended when it passes its limit.
 */
export async function parseBounceMessage(source: Buffer): Promise<BounceMessage> {
  const { simpleParser } = await import('mailparser');
  try {
    const parsed = await simpleParser(source, { keepDeliveryStatus: true, skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true, checksumAlgo: false, ignoreEmbedded: true });
    return { report: readBounceReport(parsed), addressedTo: addressedTo(parsed), originalMessageId: findOriginalMessageId(parsed), sender: senderOf(parsed) };
  } catch (err) {
    return { report: { kind: 'malformed', reason: `unparseable: ${err instanceof Error ? err.message : String(err)}` }, addressedTo: [], originalMessageId: null, sender: null };
  }
}
