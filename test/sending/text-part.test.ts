/**
 * D17.2: every message with HTML is multipart/alternative with a text/plain part. When the
 * campaign (or SEND_EMAIL step) has no text, it is made from the rendered HTML with html-to-text:
 * links kept as their tracked URLs, no markup left. A text-only campaign stays plain text.
 * Received by a real SMTP server and parsed with mailparser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { activeAutomation, allEnded, event, waitForRuns } from '../automations/helpers.ts';
import { MAX_TEXT_SOURCE_TAGS } from '../../src/sending/liquid-sandbox.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from './smtp-sink.ts';
import { addressMaker, FAST_SENDING, linksIn, PUBLIC_URL, recipientRows, tenant, type Tenant } from './send-helpers.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const at = addressMaker('text-part');

const HTML_ONLY = {
  subject: 'News for {{ first_name }}',
  from_email: 'news@acme.test',
  preheader: 'The short line for the inbox',
  html: '<html><body><h1>Spring sale</h1><p>Hello <b>{{ first_name }}</b>, see <a href="https://shop.example.com/sale">the sale</a>.</p><img src="https://cdn.example.com/banner.png" alt="Banner"><table><tr><td>Cell</td></tr></table></body></html>',
  text: null,
};

/** The Content-Type of the message's top MIME part. */
const topType = (m: ReceivedMessage) => /^content-type:\s*([^;\r\n]+)/im.exec(m.raw)![1].trim().toLowerCase();

function expectGeneratedText(mail: ReceivedMessage) {
  expect(topType(mail)).toBe('multipart/alternative');
  const text = mail.text!;
  expect(text).toBeTruthy();
  expect(text).toContain('SPRING SALE');
  expect(text).toContain('Hello Ann');
  expect(text).not.toMatch(/<[a-z/][^>]*>/i);
  expect(text).not.toContain('{{');
  // The same tracked click URL as the HTML's link, never the raw target.
  const tracked = linksIn(mail.html as string).hrefs.filter((h) => h.startsWith(`${PUBLIC_URL}/t/c/`));
  expect(tracked.length).toBeGreaterThan(0);
  expect(text).toContain(tracked[0]);
  expect(text).not.toContain('https://shop.example.com/sale');
  // The unsubscribe link of D16 is there too; the open pixel and images are not.
  expect(text).toMatch(new RegExp(`Unsubscribe \\[${PUBLIC_URL}/u/`));
  expect(text).not.toContain('/t/o/');
  expect(text).not.toContain('banner.png');
  expect(text).not.toContain('The short line for the inbox');
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.dispatcher.start();
  server.sender.automationRunner.start();
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('D17.2: a text part in every message', () => {
  it('a campaign with HTML only arrives multipart/alternative, its text made from the HTML with tracked links', async () => {
    const list = await t.list('Text part');
    await t.contact({ email: at('ann'), first_name: 'Ann', list_id: list });
    const campaign = await t.campaign({ ...HTML_ONLY, list_ids: [list] });
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const [mail] = sink.to(at('ann'));
    expectGeneratedText(mail);
  });

  it("a campaign's own text is sent as written, beside the HTML", async () => {
    const list = await t.list('Own text');
    await t.contact({ email: at('bo'), first_name: 'Bo', list_id: list });
    const campaign = await t.campaign({ ...HTML_ONLY, text: 'Plain words for {{ first_name }}', list_ids: [list] });
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const [mail] = sink.to(at('bo'));
    expect(topType(mail)).toBe('multipart/alternative');
    expect(mail.text).toMatch(/^Plain words for Bo/);
  });

  it('a text-only campaign stays plain text, with no HTML part', async () => {
    const list = await t.list('Text only');
    await t.contact({ email: at('cy'), first_name: 'Cy', list_id: list });
    const campaign = await t.campaign({ subject: 'Plain', from_email: 'news@acme.test', text: 'Just text, {{ first_name }}', html: null, list_ids: [list] });
    await t.send(campaign.id);
    await t.waitForStatus(campaign.id, 'SENT');
    const [mail] = sink.to(at('cy'));
    expect(topType(mail)).toBe('text/plain');
    expect(mail.html).toBe(false);
    expect(mail.text).toMatch(/^Just text, Cy/);
  });

  it('a test send of an HTML-only campaign has the generated text part too', async () => {
    await t.contact({ email: at('ann-test'), first_name: 'Ann' });
    const campaign = await t.campaign({ ...HTML_ONLY, subject: 'Test of text part' });
    const res = await t.call('POST', `/api/v1/campaigns/${campaign.id}/test`, { emails: [at('ann-test')] });
    expect(res.status, res.text).toBe(200);
    const mail = await (async () => {
      for (let i = 0; i < 200; i++) {
        const found = sink.to(at('ann-test'));
        if (found.length) return found[0];
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('the test send never arrived');
    })();
    expect(topType(mail)).toBe('multipart/alternative');
    expect(mail.text).toContain('SPRING SALE');
    expect(mail.text).not.toMatch(/<[a-z/][^>]*>/i);
  });

  it('an automation SEND_EMAIL step without text sends a generated text part', async () => {
    await t.contact({ email: at('ann-auto'), first_name: 'Ann' });
    const id = await activeAutomation(t, {
      trigger: { type: 'EVENT', event: 'joined' },
      steps: [{ type: 'SEND_EMAIL', subject: 'Welcome {{ first_name }}', from_email: 'hello@acme.test', html: HTML_ONLY.html }],
    });
    await event(server, t.key, { email: at('ann-auto'), event: 'joined' });
    await waitForRuns(t, id, allEnded(1));
    const [mail] = sink.to(at('ann-auto'));
    expectGeneratedText(mail);
  });

  it('HTML with more tags than a text part can be made from in bounded time: the recipient is FAILED saying so, and a text of its own sends it', async () => {
    const list = await t.list('Too many tags');
    await t.contact({ email: at('dee'), first_name: 'Dee', list_id: list });
    const html = '<p>Hi</p>' + '<br>'.repeat(MAX_TEXT_SOURCE_TAGS);
    const refused = await t.campaign({ ...HTML_ONLY, html, list_ids: [list] });
    await t.send(refused.id);
    await t.waitForStatus(refused.id, ['SENT', 'FAILED']);
    const row = (await recipientRows(server, refused.id)).get(at('dee'))!;
    expect(row.status).toBe('FAILED');
    expect(row.last_error).toContain('too many to make its text part from; give it a text of its own');
    expect(sink.to(at('dee'))).toEqual([]);

    const own = await t.campaign({ ...HTML_ONLY, html, text: 'Hi {{ first_name }}', list_ids: [list] });
    await t.send(own.id);
    await t.waitForStatus(own.id, 'SENT');
    const [mail] = sink.to(at('dee'));
    expect(topType(mail)).toBe('multipart/alternative');
    expect(mail.text).toMatch(/^Hi Dee/);
  });
});
