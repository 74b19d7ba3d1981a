/**
 * Issue 28, "also seen": one forged ARF complaint could stop a small campaign (D23's complaint
 * rate passes 0.3% with one complaint in 100 messages, and anyone can mail an ARF report to a
 * bounce address). Now a complaint counts only for a delivered message (SENT, no bounce), and the
 * stop counts complaints per distinct reporter, the network the report came from (an IPv4 /24
 * here): one reporter never stops a campaign alone, whatever its reports say about themselves.
 * Reports are sent from addresses in distinct /24s of 127.0.0.0/8, which Linux answers on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bounceAddress } from '../../src/sending/message.ts';
import { TokenSigner } from '../../src/domain/shared/tokens.ts';
import { arf } from '../feedback/report-messages.ts';
import { BOUNCE_DOMAIN, sendMessage, startBounceTestServer, type BounceTestServer } from '../sending/smtp-client.ts';
import { recipientRows, sendable } from '../sending/send-helpers.ts';

const signer = new TokenSigner('test-secret'); // what startTestServer configures
const FORGER = '127.0.1.1';
const FORGER_NEIGHBOUR = '127.0.1.77'; // the same /24: the same reporter
const SECOND_REPORTER = '127.0.2.1';

let b: BounceTestServer;

beforeAll(async () => {
  // Small batches; a 4xx is retried only after ten minutes: the deferred recipients keep the campaign SENDING.
  b = await startBounceTestServer({ SEND_BATCH_SIZE: '10', SEND_RETRY_BASE_MS: '600000' });
});
afterAll(() => b?.close());

/** An ARF complaint about the recipient row `recipientId`, sent to its bounce address from `from`; `variant` changes what the report says about itself. */
function complain(from: string, recipientId: number, variant = 0) {
  const to = bounceAddress(signer, { kind: 'bounce', recipientId }, BOUNCE_DOMAIN);
  const report = arf({ to }).replace('Source-IP: 192.0.2.1', `Source-IP: 192.0.2.${variant + 1}\r\nReporting-MTA: dns; mx${variant}.isp${variant}.example`);
  return sendMessage(b.port, from, to, report);
}

describe('issue 28: a forged ARF complaint does not stop a campaign', () => {
  it('counts nothing for messages never delivered, counts one reporter once, and stops on a second reporter', async () => {
    const { server, sink, t } = b;
    // 110 delivered, 5 refused (550: BOUNCED, 4.3% is under the bounce limit), 10 deferred (451).
    const emails = [
      ...Array.from({ length: 110 }, (_, i) => `fine${i}@arf.test`),
      ...Array.from({ length: 5 }, (_, i) => `gone${i}@arf.test`),
      ...Array.from({ length: 10 }, (_, i) => `later${i}@arf.test`),
    ];
    sink.respond(({ stage, address }) => {
      if (stage !== 'rcpt') return undefined;
      if (address.startsWith('gone')) return { code: 550, message: '5.1.1 no such user' };
      return address.startsWith('later') ? { code: 451, message: '4.7.1 try again later' } : undefined;
    });
    const list = await t.list('Complaints');
    const imported = await t.call('POST', '/v1/contacts/bulk', { listId: String(list), contacts: emails.map((email) => ({ email })) });
    expect(imported.status, imported.text).toBe(200);
    const campaign = await t.campaign(sendable([list]));
    await t.send(campaign.id);
    // The sender is driven by the test, round by round, so it looks at the rates only when told.
    let rows = await recipientRows(server, campaign.id);
    for (let round = 0; ; round++, rows = await recipientRows(server, campaign.id)) {
      const all = [...rows.values()];
      if (all.filter((r) => r.status === 'SENT').length === 110 && all.filter((r) => r.status === 'BOUNCED').length === 5 && all.filter((r) => r.status === 'PENDING' && r.attempts === 1).length === 10) break;
      if (round === 200) throw new Error('the campaign never reached 110 sent, 5 bounced and 10 deferred');
      await server.sender.dispatcher.runOnce();
    }
    const id = (email: string) => rows.get(email)!.id;
    // One turn: the sender looks at the campaign's rates before it claims (nothing is due).
    const lookAtRates = async () => {
      await server.sender.dispatcher.runOnce(0);
      return t.getCampaign(campaign.id);
    };

    // Forged complaints for messages that bounced: no such (delivered) message, nothing counted.
    for (let i = 0; i < 5; i++) expect(await complain(FORGER, id(`gone${i}@arf.test`), i)).toMatchObject({ code: 550, text: '5.1.1 No such message' });
    // For messages not sent yet: offered again later, nothing counted.
    expect((await complain(FORGER, id('later0@arf.test'))).code).toBe(451);
    expect(await lookAtRates()).toMatchObject({ status: 'SENDING' });

    // One reporter's complaints about delivered messages, each report naming another MTA and
    // source: recorded (each contact COMPLAINED and suppressed), but one reporter.
    for (const [i, from] of [FORGER, FORGER, FORGER_NEIGHBOUR].entries()) expect((await complain(from, id(`fine${i}@arf.test`), i)).code).toBe(250);
    const complained = [...(await recipientRows(server, campaign.id)).values()].filter((r) => r.complained_at !== null);
    expect(complained.map((r) => r.email).sort()).toEqual(['fine0@arf.test', 'fine1@arf.test', 'fine2@arf.test']);
    expect(await lookAtRates()).toMatchObject({ status: 'SENDING' });

    // A second reporter: two distinct reporters over 115 messages pass the 0.3% limit.
    expect((await complain(SECOND_REPORTER, id('fine50@arf.test'))).code).toBe(250);
    const stopped = await lookAtRates();
    expect(stopped).toMatchObject({ status: 'FAILED', error: `complaint rate ${((2 / 115) * 100).toFixed(2)}% over the latest 115 messages (the limit is 0.3%)` });
    sink.respond(undefined);
  });
});
