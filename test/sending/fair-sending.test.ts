import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SPIN } from './heavy-templates.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, messagesOfCampaign, recipientRows, sendable, tenant } from './send-helpers.ts';

// Issue 14 H4: one sender renders every account's mail, and it took one account's campaign a batch
// at a time: account A's heavy 20-recipient campaign delayed account B's one-recipient campaign by
// 35 s, growing with A's list. Turns now go round-robin by account, each bounded by one message's
// render budget, so B waits for a turn of A's, not for A's list.

let sink: SmtpSink;
let server: TestServer;
const at = addressMaker('fair');

beforeAll(async () => {
  sink = await startSmtpSink();
  // A budget of 1 s a message: each of A's heavy messages holds the render thread that long.
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING, SEND_RENDER_BUDGET_MS: '1000' });
  server.sender.dispatcher.start();
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('H4: sending is fair across accounts', () => {
  it("account B's one-recipient campaign, started after account A's heavy one, is received before A's campaign finishes", async () => {
    const a = await tenant(server);
    const b = await tenant(server);
    // A: 9 contacts whose message renders until the budget ends (FAILED), between 9 plain ones;
    // never 10 heavy in a row, so A's campaign is not failed early and goes all the way.
    const aList = await a.list('Heavy');
    const aLight: string[] = [];
    for (let i = 0; i < 9; i++) {
      await a.contact({ email: at(`heavy${i}`), custom_fields: { spin: true }, list_id: aList });
      const light = at(`light${i}`);
      aLight.push(light);
      await a.contact({ email: light, list_id: aList });
    }
    const bList = await b.list('One');
    const bOnly = at('b');
    await b.contact({ email: bOnly, list_id: bList });
    const aCampaign = (await a.campaign(sendable([aList], { html: `<p>Hi</p>${SPIN}` }))).id;
    const bCampaign = (await b.campaign(sendable([bList]))).id;

    await a.send(aCampaign);
    // B starts once the sender is at work on A.
    for (const deadline = Date.now() + 15_000; ; ) {
      const rows = [...(await recipientRows(server, aCampaign)).values()];
      if (rows.some((r) => r.status !== 'PENDING')) break;
      if (Date.now() > deadline) throw new Error("the sender never took up A's campaign");
      await new Promise((r) => setTimeout(r, 20));
    }
    await b.send(bCampaign);

    expect((await b.waitForStatus(bCampaign, ['SENT', 'FAILED'], 30_000)).status).toBe('SENT');
    expect((await a.waitForStatus(aCampaign, ['SENT', 'FAILED'], 60_000)).status).toBe('SENT');
    const aReceived = messagesOfCampaign(sink.messages, aCampaign);
    expect(aReceived).toHaveLength(aLight.length);
    const [bReceived] = messagesOfCampaign(sink.messages, bCampaign);
    expect(bReceived.envelope.to).toEqual([bOnly]);
    // Order of arrival at the SMTP sink: B's message came in before A's last.
    expect(sink.messages.indexOf(bReceived)).toBeLessThan(sink.messages.indexOf(aReceived[aReceived.length - 1]));
  });
});
