import { describe, expect, it } from 'vitest';
import { blockersSentence, sendBlockers, sendErrorWords } from './send-readiness.ts';

const ready = { subject: 'Hi', from_email: 'a@b.example', html: '<p>x</p>', text: '', hasAudience: true, recipients: 3 };

describe('send readiness (issue 34 item 2)', () => {
  it('names what is missing in words, and nothing when it can be sent', () => {
    expect(sendBlockers(ready)).toEqual([]);
    expect(sendBlockers({ ...ready, recipients: undefined })).toEqual([]);
    expect(sendBlockers({ ...ready, subject: ' ', from_email: '', html: '', hasAudience: false })).toEqual(['add a subject', "add the sender's address (From e-mail)", 'write the content', 'choose who gets it: a list or a segment']);
    expect(sendBlockers({ ...ready, html: '', text: 'plain' })).toEqual([]);
    expect(blockersSentence(sendBlockers({ ...ready, recipients: 0 }))).toBe('Not ready to send: no one to send to: the chosen lists and segments hold no subscribed contact matching the tags.');
  });

  it("rewords the send route's refusals without field names, and leaves other messages alone", () => {
    expect(sendErrorWords('the campaign cannot be sent without subject, from_email, html or text, list_ids or segment_ids')).toBe("It cannot be sent without a subject, the sender's address (From e-mail), content, an audience (a list or a segment).");
    expect(sendErrorWords('scheduled_at must be in the future')).toBe('The send time must be in the future.');
    expect(sendErrorWords('the campaign has no recipients: its lists and segments hold no SUBSCRIBED contact')).toMatch(/^No one to send to/);
    expect(sendErrorWords('something else')).toBe('something else');
  });
});
