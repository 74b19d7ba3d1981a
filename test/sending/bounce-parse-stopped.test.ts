/**
 * Issue 28, "also seen": bounce messages were parsed on the main thread, and the parse time limit
 * was a Promise.race that answered but did not stop the parse. Now each message is parsed on a
 * parse thread that is ended at BOUNCE_PARSE_MS: a message crafted to parse slowly (a To header
 * of 135,000 address groups, within the 1 MB limit: over a second of mailparser's time) is answered 550
 * naming the limit, and the receiver answers other messages meanwhile and after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dsn } from '../feedback/report-messages.ts';
import { prepareMessage, sendMessage, startBounceTestServer, type BounceTestServer, type SmtpReply } from './smtp-client.ts';
import { addressMaker, messagesOfCampaign, recipientRows, sendable } from './send-helpers.ts';

// Under the crafted message's parse (over a second), well over an ordinary DSN's parse and
// recording (a few ms, more on a busy machine: the DSN must be answered within it to come first).
const PARSE_MS = 500;

let b: BounceTestServer;
const at = addressMaker('parse');

beforeAll(async () => {
  b = await startBounceTestServer({ BOUNCE_PARSE_MS: String(PARSE_MS) });
  b.server.sender.dispatcher.start();
});
afterAll(() => b?.close());

/** A campaign sent to `names`; by e-mail, each message's bounce address (its envelope sender). */
async function sentCampaign(names: string[]) {
  const { t, sink } = b;
  const list = await t.list(`parse ${names.join(' ')}`);
  for (const name of names) await t.contact({ email: at(name), list_id: list });
  const campaign = await t.campaign(sendable([list]));
  await t.send(campaign.id);
  await t.waitForStatus(campaign.id, 'SENT');
  const mail = messagesOfCampaign(sink.messages, campaign.id);
  return { campaignId: campaign.id, returnPath: new Map(mail.map((m) => [m.envelope.to[0], m.envelope.from])) };
}

/** A message that takes mailparser over a second: one To header of 135,000 address groups, just under 1 MB. */
function slowToParse(to: string): string {
  const groups = 'g:a@b;,'.repeat(135_000);
  return `From: someone@example.org\r\nTo: ${to},${groups}\r\nSubject: slow\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nslow\r\n`;
}

const STOPPED = new RegExp(`^5\\.6\\.0 Message not parsed within ${PARSE_MS} ms \\(the limit for a bounce message\\), not read$`);

async function rowStatus(campaignId: number, email: string) {
  return (await recipientRows(b.server, campaignId)).get(email)!.status;
}

describe('issue 28: a bounce message that parses slowly is stopped at BOUNCE_PARSE_MS', () => {
  it('is answered 550 naming the limit, and another sender\'s DSN sent after it is answered first', async () => {
    const { campaignId, returnPath } = await sentCampaign(['slow1', 'next1']);
    const slow = await prepareMessage(b.port, '127.0.0.1', returnPath.get(at('slow1'))!, slowToParse(at('slow1')));
    const next = await prepareMessage(b.port, '127.0.0.2', returnPath.get(at('next1'))!, dsn({ to: at('next1'), status: '5.1.1' }));
    const answered: string[] = [];
    const note = (name: string) => (reply: SmtpReply) => (answered.push(name), reply);
    const slowReply = slow.end().then(note('slow'));
    // The slow one is being parsed (or waits for a thread) when the DSN's data ends.
    const nextReply = next.end().then(note('next'));
    const [slowAnswer, nextAnswer] = await Promise.all([slowReply, nextReply]);
    slow.close();
    next.close();

    expect(nextAnswer).toMatchObject({ code: 250 });
    expect(slowAnswer.code).toBe(550);
    expect(slowAnswer.text).toMatch(STOPPED);
    expect(answered).toEqual(['next', 'slow']);
    expect(await rowStatus(campaignId, at('next1'))).toBe('BOUNCED');
    expect(await rowStatus(campaignId, at('slow1'))).toBe('SENT');
  });

  it('the same sender\'s next message is read and applied once the slow one was stopped', async () => {
    const { campaignId, returnPath } = await sentCampaign(['slow2', 'next2']);
    const first = await sendMessage(b.port, '127.0.0.3', returnPath.get(at('slow2'))!, slowToParse(at('slow2')));
    expect(first.code).toBe(550);
    expect(first.text).toMatch(STOPPED);
    const second = await sendMessage(b.port, '127.0.0.3', returnPath.get(at('next2'))!, dsn({ to: at('next2'), status: '5.1.1' }));
    expect(second).toEqual({ code: 250, text: expect.any(String) });
    expect(await rowStatus(campaignId, at('next2'))).toBe('BOUNCED');
  });

  it('one sender has at most two messages waiting: a further one is told 451 to try again later, naming the limit', async () => {
    const names = ['q1', 'q2', 'q3', 'q4'];
    const { returnPath } = await sentCampaign(names);
    const pending = [];
    for (const name of names) pending.push(await prepareMessage(b.port, '127.0.0.4', returnPath.get(at(name))!, slowToParse(at(name))));
    // All four end at once: one is parsed, two wait, the fourth finds the sender's queue full.
    const replies = await Promise.all(pending.map((p) => p.end()));
    for (const p of pending) p.close();
    const codes = replies.map((r) => r.code).sort();
    expect(codes).toEqual([451, 550, 550, 550]);
    expect(replies.find((r) => r.code === 451)!.text).toBe('4.7.0 2 messages from 127.0.0.4 already wait to be read, try again later');
    for (const r of replies.filter((r) => r.code === 550)) expect(r.text).toMatch(STOPPED);
  });
});
