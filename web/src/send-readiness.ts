/**
 * Issue 34 item 2: why a campaign cannot be sent or scheduled yet, in words, from what the editor
 * holds (D13's rule: a subject, a sender, content and an audience, as the send route checks), and
 * the send route's refusals reworded, so the marketer never reads an API field name.
 */

export interface SendDraft {
  subject: string;
  from_email: string;
  html: string;
  text: string;
  /** lists, segments or a follow-up's source campaign chosen */
  hasAudience: boolean;
  /** the audience estimate: undefined while it is counted or when it could not be */
  recipients: number | undefined;
}

/** The reasons, each a lower-case clause; empty when it can be sent. */
export function sendBlockers(d: SendDraft): string[] {
  const reasons: string[] = [];
  if (!d.subject.trim()) reasons.push('add a subject');
  if (!d.from_email.trim()) reasons.push("add the sender's address (From e-mail)");
  if (!d.html.trim() && !d.text.trim()) reasons.push('write the content');
  if (!d.hasAudience) reasons.push('choose who gets it: a list or a segment');
  else if (d.recipients === 0) reasons.push('no one to send to: the chosen lists and segments hold no subscribed contact matching the tags');
  return reasons;
}

/** The reasons as one sentence. */
export const blockersSentence = (reasons: string[]) => `Not ready to send: ${reasons.join('; ')}.`;

/** D13's words for what is missing, by the field names the API's refusal lists. */
const MISSING_WORDS: Record<string, string> = {
  subject: 'a subject',
  from_email: "the sender's address (From e-mail)",
  'html or text': 'content',
  'list_ids or segment_ids': 'an audience (a list or a segment)',
};

/** A refusal of send, schedule or test send, reworded where the API names fields; other messages as they are. */
export function sendErrorWords(message: string): string {
  const missing = /^the campaign cannot be sent without (.+)$/.exec(message);
  if (missing) {
    const parts = missing[1].split(', ').map((p) => MISSING_WORDS[p] ?? p);
    return `It cannot be sent without ${parts.join(', ')}.`;
  }
  if (/^scheduled_at must be in the future/.test(message)) return 'The send time must be in the future.';
  if (/^scheduled_at\b/.test(message)) return 'The send time is not a valid date and time.';
  if (/^the campaign has no recipients/.test(message)) return 'No one to send to: the chosen lists and segments hold no subscribed contact matching the tags who is not on the suppression list.';
  return message;
}
