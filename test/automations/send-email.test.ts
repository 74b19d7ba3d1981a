import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../sending/smtp-sink.ts';
import { addressMaker, FAST_SENDING, hit, linksIn, onServer, rawHeader, tenant } from '../sending/send-helpers.ts';
import { activeAutomation, allEnded, event, waitForRuns } from './helpers.ts';

// D15 SEND_EMAIL through the campaign transport with D16's tracking and unsubscribe, never to a
// contact who is not SUBSCRIBED; WAIT is a due time that survives a restart.

let sink: SmtpSink;
let server: TestServer;
const at = addressMaker('auto-mail');
const mailStep = (subject: string) => ({
  type: 'SEND_EMAIL',
  subject,
  from_email: 'hello@acme.test',
  from_name: 'Acme',
  html: '<p>Hi {{ first_name }}, you spent {{ custom_fields.spent }}</p><a href="https://example.com/shop">Shop</a>',
  text: 'Hi {{ first_name }}',
});

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  server.sender.automationRunner.start();
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

describe('D15 SEND_EMAIL', () => {
  it("D22: an automation mail's {{ webview_url }} shows that mail in the browser, counting no open", async () => {
    const t = await tenant(server);
    await t.contact({ email: at('bea'), first_name: 'Bea', custom_fields: { spent: 7 } });
    const step = { ...mailStep('Welcome {{ first_name }}'), html: '<p>Hi {{ first_name }}, you spent {{ custom_fields.spent }}</p><a href="{{ webview_url }}">View online</a>' };
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'joined' }, steps: [step] });
    await event(server, t.key, { email: at('bea'), event: 'joined' });
    await waitForRuns(t, id, allEnded(1));
    const [mail] = sink.to(at('bea'));
    const view = linksIn(mail.html as string).hrefs.find((h) => h.includes('/w/'))!;
    const page = await hit(onServer(server, view));
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('Hi Bea, you spent 7');
    expect(page.text).not.toContain('/t/o/');
    const recipient = await server.db.selectFrom('campaign_recipients').select('opened_at').where('email', '=', at('bea')).executeTakeFirstOrThrow();
    expect(recipient.opened_at).toBeNull();
  });

  it("D26.7: a SEND_EMAIL step renders the triggering event's data as {{ event.<key> }}, as a CONDITION reads it", async () => {
    const t = await tenant(server);
    await t.contact({ email: at('ola'), first_name: 'Ola' });
    const step = { ...mailStep('Order {{ event.order.id }}'), html: '<p>You paid {{ event.amount }} for order {{ event.order.id }}</p>', text: 'You paid {{ event.amount }}' };
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'paid' }, steps: [{ type: 'CONDITION', field: 'event.amount', op: 'gte', value: 10 }, step] });
    await event(server, t.key, { email: at('ola'), event: 'paid', data: { amount: 42.5, order: { id: 'A-7' } } });
    await waitForRuns(t, id, allEnded(1));
    const [mail] = sink.to(at('ola'));
    expect(mail.subject).toBe('Order A-7');
    expect(mail.html).toContain('You paid 42.5 for order A-7');
    expect(mail.text).toContain('You paid 42.5');
  });

  it('mails the contact through SMTP with merge fields, tracking, List-Unsubscribe and a working one-click unsubscribe', async () => {
    const t = await tenant(server);
    await t.contact({ email: at('ann'), first_name: 'Ann', custom_fields: { spent: 42 } });
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'bought' }, steps: [mailStep('Thanks {{ first_name }}')] });
    await event(server, t.key, { email: at('ann'), event: 'bought' });
    const [run] = await waitForRuns(t, id, allEnded(1));
    expect(run.history).toEqual([expect.objectContaining({ step_index: 0, type: 'SEND_EMAIL', status: 'SENT', attempts: 1 })]);
    const [mail] = sink.to(at('ann'));
    expect(sink.to(at('ann'))).toHaveLength(1);
    expect(mail.subject).toBe('Thanks Ann');
    expect(mail.from?.value[0]).toMatchObject({ address: 'hello@acme.test', name: 'Acme' });
    expect(mail.html).toContain('Hi Ann, you spent 42');
    expect(rawHeader(mail.raw, 'List-Unsubscribe-Post')).toEqual(['List-Unsubscribe-Post: List-Unsubscribe=One-Click']);
    const listUnsubscribe = rawHeader(mail.raw, 'List-Unsubscribe')[0];
    expect(listUnsubscribe).toMatch(/<https:\/\/mail\.example\.test\/u\/[^>]+>, <mailto:/);

    const { hrefs, imgs } = linksIn(mail.html as string);
    const click = hrefs.find((h) => h.includes('/t/c/'))!;
    expect((await hit(onServer(server, click))).headers.get('location')).toBe('https://example.com/shop');
    expect((await hit(onServer(server, imgs.find((i) => i.includes('/t/o/'))!))).status).toBe(200);
    const unsubscribe = listUnsubscribe.match(/<(https:[^>]+)>/)![1];
    const oneClick = await hit(onServer(server, unsubscribe), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(200);
    expect((await t.getContact(at('ann'))).status).toBe('UNSUBSCRIBED');

    // The message is counted like a campaign's (opens, clicks, unsubscribes), in a campaign the API never lists.
    const recipient = await server.db.selectFrom('campaign_recipients').selectAll().where('email', '=', at('ann')).executeTakeFirstOrThrow();
    expect(recipient).toMatchObject({ status: 'SENT' });
    expect(recipient.opened_at).not.toBeNull();
    expect(recipient.clicked_at).not.toBeNull();
    expect(recipient.unsubscribed_at).not.toBeNull();
    expect((await t.call('GET', '/api/v1/campaigns')).body.data.totalElements).toBe(0);
    expect((await t.call('GET', `/api/v1/campaigns/${recipient.campaign_id}`)).status).toBe(404);
  });

  it('never mails a contact who is not SUBSCRIBED: the step is SKIPPED and the run goes on', async () => {
    const t = await tenant(server);
    await t.contact({ email: at('gone') });
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('gone'))}`, { status: 'UNSUBSCRIBED' });
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'ping' }, steps: [mailStep('Nope'), { type: 'ADD_TAG', tag: 'after' }] });
    await event(server, t.key, { email: at('gone'), event: 'ping' });
    const [run] = await waitForRuns(t, id, allEnded(1));
    expect(run.history.map((h: any) => [h.type, h.status])).toEqual([
      ['SEND_EMAIL', 'SKIPPED'],
      ['ADD_TAG', 'DONE'],
    ]);
    expect(run.history[0].detail).toMatch(/UNSUBSCRIBED/);
    expect(sink.to(at('gone'))).toEqual([]);
  });

  it('a contact who unsubscribes during a WAIT gets no later mail', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, {
      trigger: { type: 'CONTACT_CREATED' },
      steps: [mailStep('First'), { type: 'WAIT', seconds: 3600 }, mailStep('Second')],
    });
    await t.contact({ email: at('leaver'), first_name: 'L' });
    await waitForRuns(t, id, (runs) => runs.length === 1 && runs[0].history.length === 2);
    expect(sink.to(at('leaver'))).toHaveLength(1);
    await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(at('leaver'))}`, { status: 'UNSUBSCRIBED' });
    // The hour passes (the due time moved to now).
    await server.db.updateTable('automation_runs').set({ due_at: new Date().toISOString() }).where('automation_id', '=', id).execute();
    const [run] = await waitForRuns(t, id, allEnded(1));
    expect(run.history.map((h: any) => h.status)).toEqual(['SENT', 'DONE', 'SKIPPED']);
    expect(sink.to(at('leaver')).map((m) => m.subject)).toEqual(['First']);
  });

  it('a 4xx is retried with backoff (the run waits on the step), a 5xx bounces the contact; the run goes on either way', async () => {
    const t = await tenant(server);
    const later = at('later');
    const gone = at('bounce');
    sink.respond(({ stage, address, attempt }) => {
      if (stage === 'rcpt' && address === later && attempt === 1) return { code: 451, message: 'try later' };
      if (stage === 'rcpt' && address === gone) return { code: 550, message: 'no such user' };
    });
    try {
      const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'm' }, steps: [mailStep('Retry me'), { type: 'ADD_TAG', tag: 'after' }] });
      await event(server, t.key, { email: later, event: 'm' });
      await event(server, t.key, { email: gone, event: 'm' });
      const runs = await waitForRuns(t, id, allEnded(2));
      const byEmail = new Map(runs.map((r) => [r.email, r.history]));
      expect(byEmail.get(later)!.map((h: any) => [h.type, h.status, h.attempts])).toEqual([
        ['SEND_EMAIL', 'SENT', 2],
        ['ADD_TAG', 'DONE', 1],
      ]);
      expect(byEmail.get(gone)![0]).toMatchObject({ type: 'SEND_EMAIL', status: 'BOUNCED', detail: expect.stringContaining('550') });
      expect(sink.to(later)).toHaveLength(1);
      expect(sink.to(gone)).toEqual([]);
      expect((await t.getContact(gone)).status).toBe('BOUNCED');
    } finally {
      sink.respond(undefined);
    }
  });

  it('a contact re-entering a workflow that allows it gets the message again each time', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'again' }, allow_reentry: true, steps: [mailStep('Again')] });
    for (let n = 1; n <= 3; n++) {
      await event(server, t.key, { email: at('twice'), event: 'again' });
      await waitForRuns(t, id, allEnded(n));
    }
    // Each a message of its own (a campaign holds one per e-mail, so each re-entry uses the step's next one).
    const mails = sink.to(at('twice'));
    expect(mails).toHaveLength(3);
    expect(new Set(mails.map((m) => m.messageId)).size).toBe(3);
  });
});

describe('H3: a SEND_EMAIL step whose message cannot be rendered', () => {
  it('ends FAILED with the reason after one attempt (a render-time error, and content that does not compile), and the run goes on', async () => {
    const t = await tenant(server);
    const broken = (html: string) => ({ ...mailStep('Broken'), html });
    // A tag that reaches for a file (the sandbox refuses it while rendering), and a Liquid syntax error.
    const atRender = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'render' }, steps: [broken("<p>Hi</p>{% include 'header' %}"), { type: 'ADD_TAG', tag: 'after' }] });
    const atCompile = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'compile' }, steps: [broken('<p>Hi {{ first_name }}</p>'), { type: 'ADD_TAG', tag: 'after' }] });
    // D17.4 refuses a syntax error when the step is saved; a workflow saved before that check may hold one.
    const saved = await server.db.selectFrom('automations').select('steps').where('id', '=', atCompile).executeTakeFirstOrThrow();
    await server.db.updateTable('automations').set({ steps: saved.steps.replace('{{ first_name }}', '{{ first_name ') }).where('id', '=', atCompile).execute();
    await event(server, t.key, { email: at('render'), event: 'render' });
    await event(server, t.key, { email: at('compile'), event: 'compile' });

    for (const [id, email, reason] of [
      [atRender, at('render'), 'could not render the message'],
      [atCompile, at('compile'), 'the content cannot be rendered'],
    ] as const) {
      const [run] = await waitForRuns(t, id, allEnded(1));
      expect(run.status).toBe('COMPLETED');
      expect(run.history.map((h: any) => [h.type, h.status, h.attempts])).toEqual([
        ['SEND_EMAIL', 'FAILED', 1],
        ['ADD_TAG', 'DONE', 1],
      ]);
      expect(run.history[0].detail).toContain(reason);
      const recipient = await server.db.selectFrom('campaign_recipients').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
      expect(recipient).toMatchObject({ status: 'FAILED', sent_at: null });
      expect(recipient.last_error).toContain(reason);
      expect(sink.to(email)).toEqual([]);
    }
  });
});

describe('M1: a SEND_EMAIL step to an address the transport refuses outright', () => {
  it('ends FAILED after one attempt instead of being retried: the address would be refused every time', async () => {
    const t = await tenant(server);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'envelope' }, steps: [{ type: 'WAIT', seconds: 1 }, mailStep('Refused'), { type: 'ADD_TAG', tag: 'after' }] });
    await event(server, t.key, { email: at('envelope'), event: 'envelope' });
    // Old data the API refuses now (CR LF in a quoted local part), written past it during the WAIT.
    await server.db.updateTable('contacts').set({ email: '"x\r\ny"@example.com' }).where('email', '=', at('envelope')).execute();
    const [run] = await waitForRuns(t, id, allEnded(1));
    expect(run.history.map((h: any) => [h.type, h.status, h.attempts])).toEqual([
      ['WAIT', 'DONE', 1],
      ['SEND_EMAIL', 'FAILED', 1],
      ['ADD_TAG', 'DONE', 1],
    ]);
  });
});

describe('D15 WAIT across a restart', () => {
  it('a run waiting when the server stops goes on after it starts again, each step once', async () => {
    const a = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
    a.sender.automationRunner.start();
    const t = await tenant(a);
    const id = await activeAutomation(t, { trigger: { type: 'EVENT', event: 'later' }, steps: [{ type: 'WAIT', seconds: 2 }, mailStep('After the wait')] });
    await event(a, t.key, { email: at('restart'), event: 'later' });
    await waitForRuns(t, id, (runs) => runs.length === 1 && runs[0].history.length === 1);
    await a.close({ keepData: true });

    const b = await startTestServer({ ...a.env, SMTP_URL: sink.url, ...FAST_SENDING });
    try {
      b.sender.automationRunner.start();
      const tb = { ...t, call: (method: string, path: string, body?: unknown) => b.request(method, path, { key: t.key, body }) };
      const [run] = await waitForRuns(tb, id, allEnded(1));
      expect(run.history.map((h: any) => [h.type, h.status, h.attempts])).toEqual([
        ['WAIT', 'DONE', 1],
        ['SEND_EMAIL', 'SENT', 1],
      ]);
      expect(sink.to(at('restart')).map((m) => m.subject)).toEqual(['After the wait']);
    } finally {
      await b.close();
    }
  });
});
