/**
 * D25.1-D25.4: transactional messages through the API, to a real SMTP server. Sending rounds are
 * run by hand (`runOnce`), so each test knows what was sent when.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addressMaker, FAST_SENDING, rawHeader, tenant, type Tenant } from '../sending/send-helpers.ts';
import { startSmtpSink, type ReceivedMessage, type SmtpSink } from '../sending/smtp-sink.ts';

let sink: SmtpSink;
let server: TestServer;
let t: Tenant;
const to = addressMaker('tx');

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: sink.url, ...FAST_SENDING });
  t = await tenant(server);
});
afterAll(async () => {
  await server?.close();
  await sink?.close();
});

async function drain(): Promise<void> {
  for (let round = 0; round < 20; round++) if ((await server.sender.dispatcher.runOnce(0)) === 0) break;
}

const received = (address: string): ReceivedMessage[] => sink.messages.filter((m) => m.envelope.to.includes(address));

const message = (body: Record<string, unknown>) => t.call('POST', '/api/v1/messages', { from_email: 'app@example.com', subject: 'Your receipt', ...body });

async function starterId(): Promise<number> {
  const res = await t.call('GET', '/api/v1/templates?kind=starter&limit=100');
  return res.body.data.templates[0].id;
}

describe('POST /api/v1/messages (D25.1)', () => {
  it('sends html with data, an attachment, X- headers, tags and metadata; no List-Unsubscribe, no footer; answers the message', async () => {
    const address = to('receipt');
    const pdf = Buffer.from('%PDF-1.4 receipt 42\n').toString('base64');
    const res = await message({
      to: address,
      html: '<p>Order {{ data.order }} for {{ email }}: <a href="https://shop.example/o/42">view</a></p><p>[{{ unsubscribe_url }}][{{ preferences_url }}]</p>',
      data: { order: 'A-42' },
      attachments: [{ filename: 'receipt.pdf', content: pdf, content_type: 'application/pdf' }],
      headers: { 'X-Order': 'A-42' },
      tags: ['receipt'],
      metadata: { order: 'A-42' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sent = res.body.data;
    expect(sent).toMatchObject({ status: 'QUEUED', to: address, from_email: 'app@example.com', subject: 'Your receipt', tags: ['receipt'], metadata: { order: 'A-42' }, scheduled_at: null, sent_at: null, error: null });
    await drain();
    const [mail] = received(address);
    expect(mail.html).toContain('Order A-42 for ' + address);
    // Not tracked: the link is as written, and there is no pixel and no unsubscribe footer.
    expect(mail.html).toContain('href="https://shop.example/o/42"');
    expect(mail.html).not.toMatch(/Unsubscribe|\/t\/o\/|\/t\/t\/|sw-trap/);
    // D25.1: the unsubscribe and preference links render empty in a transactional message.
    expect(mail.html).toContain('<p>[][]</p>');
    expect(mail.text).toContain('Order A-42');
    expect(mail.text).not.toMatch(/Unsubscribe/);
    expect(rawHeader(mail.raw, 'List-Unsubscribe')).toEqual([]);
    expect(rawHeader(mail.raw, 'X-Order')).toEqual(['X-Order: A-42']);
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([['receipt.pdf', 'application/pdf', '%PDF-1.4 receipt 42\n']]);
    const after = (await t.call('GET', `/api/v1/messages/${sent.id}`)).body.data;
    expect(after.status).toBe('SENT');
    expect(after.sent_at).not.toBeNull();
  });

  it('renders a starter of the gallery with data; reaches an UNSUBSCRIBED contact with its fields', async () => {
    const address = to('unsubscribed');
    await t.contact({ email: address, first_name: 'Ada' });
    expect((await t.call('PUT', `/api/v1/contacts/${encodeURIComponent(address)}`, { status: 'UNSUBSCRIBED' })).status).toBe(200);
    const res = await message({ to: address, template_id: await starterId(), subject: 'Hello {{ first_name }}' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The answer (and the list) shows the subject as the recipient reads it.
    expect(res.body.data.subject).toBe('Hello Ada');
    await drain();
    const [mail] = received(address);
    expect(mail.subject).toBe('Hello Ada');
    expect(mail.html).toMatch(/<html/i);
    expect(rawHeader(mail.raw, 'List-Unsubscribe')).toEqual([]);
    // Not a contact maker: the contact is as it was.
    expect((await t.getContact(address)).status).toBe('UNSUBSCRIBED');
  });

  it('makes no contact for an address that is not one', async () => {
    const address = to('stranger');
    expect((await message({ to: address, text: 'Hi' })).status).toBe(200);
    await drain();
    expect(received(address)).toHaveLength(1);
    expect((await t.call('GET', `/api/v1/contacts/${encodeURIComponent(address)}`)).status).toBe(404);
  });

  it('a suppressed address: SUPPRESSED at once with the reason, and no mail', async () => {
    const address = to('suppressed');
    expect((await t.call('POST', '/api/v1/suppressions', { value: address, reason: 'asked by phone' })).status).toBe(200);
    const res = await message({ to: address, text: 'Hi' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('SUPPRESSED');
    expect(res.body.data.error).toMatch(/suppression list \(MANUAL: asked by phone\)/);
    await drain();
    expect(received(address)).toHaveLength(0);
  });

  it('tracks opens and clicks only when asked: pixel and signed links', async () => {
    const address = to('tracked');
    const res = await message({ to: address, html: '<p><a href="https://shop.example/track">go</a></p>', track_opens: true, track_clicks: true });
    expect(res.status).toBe(200);
    await drain();
    const [mail] = received(address);
    expect(mail.html).toMatch(/\/t\/o\//);
    expect(mail.html).toMatch(/\/t\/c\//);
    expect(mail.html).not.toContain('href="https://shop.example/track"');
  });

  it('scheduled_at ahead: SCHEDULED and not sent; canceled, it never goes; cancel again is 409', async () => {
    const address = to('scheduled');
    const at = new Date(Date.now() + 3600_000).toISOString().slice(0, 19);
    const res = await message({ to: address, text: 'Later', scheduled_at: at });
    expect(res.body.data).toMatchObject({ status: 'SCHEDULED', scheduled_at: at });
    await drain();
    expect(received(address)).toHaveLength(0);
    const canceled = await t.call('POST', `/api/v1/messages/${res.body.data.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data.status).toBe('CANCELED');
    const again = await t.call('POST', `/api/v1/messages/${res.body.data.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
    // Its time comes: still nothing.
    await server.db.updateTable('messages').set({ due_at: new Date().toISOString() }).where('id', '=', res.body.data.id).execute();
    await drain();
    expect(received(address)).toHaveLength(0);
  });

  it('a scheduled message whose time has come is sent', async () => {
    const address = to('due');
    const res = await message({ to: address, text: 'Now', scheduled_at: new Date(Date.now() + 3600_000).toISOString().slice(0, 19) });
    await server.db.updateTable('messages').set({ due_at: new Date().toISOString() }).where('id', '=', res.body.data.id).execute();
    await drain();
    expect(received(address)).toHaveLength(1);
    expect((await t.call('GET', `/api/v1/messages/${res.body.data.id}`)).body.data.status).toBe('SENT');
  });
});

describe('bad input (D25.1): 400 naming the field, nothing stored', () => {
  const cases: [string, Record<string, unknown>, number, RegExp][] = [
    ['no content', {}, 400, /html/],
    ['no subject', { text: 'x', subject: undefined }, 400, /subject/],
    ['a Bcc header', { text: 'x', headers: { Bcc: 'spy@example.com' } }, 400, /headers\.Bcc.*X-/],
    ['a CRLF in a header value', { text: 'x', headers: { 'X-Evil': 'a\r\nBcc: spy@example.com' } }, 400, /headers\.X-Evil.*CR or LF/],
    ['21 headers', { text: 'x', headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) }, 400, /headers/],
    ['an executable', { text: 'x', attachments: [{ filename: 'run.EXE', content: 'AAAA' }] }, 400, /attachments\[0\]\.filename.*executable/],
    ['a path in a filename', { text: 'x', attachments: [{ filename: '../etc/passwd', content: 'AAAA' }] }, 400, /attachments\[0\]\.filename.*path/],
    ['11 attachments', { text: 'x', attachments: Array.from({ length: 11 }, (_, i) => ({ filename: `f${i}.txt`, content: 'AAAA' })) }, 400, /attachments/],
    ['a bad tag', { text: 'x', tags: ['has space'] }, 400, /tags/],
    ['metadata over 2,048 bytes', { text: 'x', metadata: { a: 'x'.repeat(2100) } }, 400, /metadata/],
    ['a year ahead', { text: 'x', scheduled_at: new Date(Date.now() + 365 * 86400_000).toISOString().slice(0, 19) }, 400, /scheduled_at.*30 days/],
    ['a render error', { html: '{% if %}' }, 400, /html.*cannot be rendered/],
    ['an unknown template', { template_id: 999999 }, 404, /template/],
  ];
  it.each(cases)('%s', async (_name, body, status, message) => {
    const address = to('bad');
    const before = await server.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await t.call('POST', '/api/v1/messages', { from_email: 'app@example.com', subject: 'S', to: address, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.message).toMatch(message);
    const after = await server.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('a body past 16 MiB (a 50 MB attachment): 413 before it is read whole, nothing stored', async () => {
    const res = await message({ to: to('huge'), text: 'x', attachments: [{ filename: 'huge.bin', content: 'A'.repeat(17 * 1024 * 1024) }] });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('over 10 MiB of attachments: 413', async () => {
    const big = Buffer.alloc(10_485_761).toString('base64');
    const res = await message({ to: to('big'), text: 'x', attachments: [{ filename: 'big.bin', content: big }] });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('batch (D25.2), list and look-up (D25.3)', () => {
  it('sends 1-100 in order, all or nothing', async () => {
    const addresses = [to('b1'), to('b2'), to('b3')];
    const res = await t.call('POST', '/api/v1/messages/batch', { messages: addresses.map((a) => ({ to: a, from_email: 'app@example.com', subject: 'Batch', text: 'Hi', tags: ['batch'] })) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((m: { to: string }) => m.to)).toEqual(addresses);
    const bad = await t.call('POST', '/api/v1/messages/batch', {
      messages: [
        { to: to('b4'), from_email: 'app@example.com', subject: 'Batch', text: 'Hi' },
        { to: to('b5'), from_email: 'app@example.com', subject: 'Batch', text: 'Hi', headers: { Bcc: 'x@example.com' } },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^messages\[1\]\.headers/);
    const unknown = await t.call('POST', '/api/v1/messages/batch', { messages: [{ to: to('b6'), from_email: 'app@example.com', subject: 'B', template_id: 999999 }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/messages\[0\]\.template_id/);
    const tooMany = await t.call('POST', '/api/v1/messages/batch', { messages: Array.from({ length: 101 }, () => ({ to: to('b7'), from_email: 'app@example.com', subject: 'B', text: 'x' })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/messages/);
    expect((await t.call('GET', '/api/v1/messages?tag=batch')).body.data.messages.map((m: { to: string }) => m.to)).toEqual([...addresses].reverse());
    await drain();
    for (const a of addresses) expect(received(a)).toHaveLength(1);
  });

  it('filters by status and to; another account sees none of them (404)', async () => {
    const address = to('filtered');
    const { body } = await message({ to: address, text: 'x' });
    const byTo = (await t.call('GET', `/api/v1/messages?to=${encodeURIComponent(address)}`)).body.data;
    expect(byTo.messages.map((m: { id: number }) => m.id)).toEqual([body.data.id]);
    const queued = (await t.call('GET', '/api/v1/messages?status=QUEUED&limit=100')).body.data.messages;
    expect(queued.some((m: { id: number }) => m.id === body.data.id)).toBe(true);
    // since and until bound created_at: a window after it finds nothing, one around it finds it.
    const created = body.data.created_at as string;
    const shift = (ms: number) => new Date(Date.parse(`${created}Z`) + ms).toISOString().slice(0, 19);
    const ids = async (q: string) => (await t.call('GET', `/api/v1/messages?to=${encodeURIComponent(address)}&${q}`)).body.data.messages.map((m: { id: number }) => m.id);
    expect(await ids(`since=${shift(-1000)}&until=${shift(1000)}`)).toEqual([body.data.id]);
    expect(await ids(`since=${shift(1000)}`)).toEqual([]);
    expect(await ids(`until=${shift(-1000)}`)).toEqual([]);
    expect((await t.call('GET', '/api/v1/messages?since=yesterday')).status).toBe(400);
    const other = await tenant(server);
    expect((await other.call('GET', `/api/v1/messages/${body.data.id}`)).status).toBe(404);
    expect((await other.call('POST', `/api/v1/messages/${body.data.id}/cancel`)).status).toBe(404);
    expect((await other.call('GET', '/api/v1/messages')).body.data.messages).toEqual([]);
    await drain();
  });
});
