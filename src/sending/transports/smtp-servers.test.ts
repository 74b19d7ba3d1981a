import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ServerGroup, SmtpServersTransport } from './smtp-servers.ts';
import type { MailTransport, OutgoingMessage, SendOutcome } from './transport.ts';

// D23: what several servers do with a message, over fake servers that answer as told.
const logger = pino({ level: 'silent' });
const TRANSPORT_FAILURE: SendOutcome = { kind: 'deferred', error: 'connect ECONNREFUSED', transportFailure: true };

/** A fake server: answers with `answer()` and counts the messages it was given. */
function fakeServer(answer: () => SendOutcome): MailTransport & { received: string[] } {
  const received: string[] = [];
  return { name: 'fake', received, send: async (m) => (received.push(m.to), answer()), close: async () => undefined };
}

const message = (to: string, from = 'news@acme.test'): OutgoingMessage => ({
  accountId: 1,
  campaignId: 1,
  from: { name: null, address: from },
  to,
  replyTo: null,
  subject: 's',
  html: null,
  text: 't',
  messageId: `<${to}>`,
  headers: {},
});

function group(servers: MailTransport[], clock = { now: 0 }) {
  return new ServerGroup(servers.map((transport, i) => ({ label: `s${i}`, transport })), { failuresToLeaveOut: 2, cooldownMs: 1000 }, logger, () => clock.now);
}

describe('ServerGroup (D23)', () => {
  it('a message whose server failed at the transport level is sent through another', async () => {
    const down = fakeServer(() => TRANSPORT_FAILURE);
    const up = fakeServer(() => ({ kind: 'sent' }));
    const g = group([down, up]);
    expect(await g.send(message('a@x.test'))).toEqual({ kind: 'sent' });
    expect([down.received, up.received]).toEqual([['a@x.test'], ['a@x.test']]);
  });

  it('a bounce or a 4xx from a server is returned as it is, never tried on another', async () => {
    for (const answer of [{ kind: 'bounced', error: '550 no such user' }, { kind: 'deferred', error: '450 busy', transportFailure: false }] as SendOutcome[]) {
      const first = fakeServer(() => answer);
      const second = fakeServer(() => ({ kind: 'sent' }));
      expect(await group([first, second]).send(message('a@x.test'))).toEqual(answer);
      expect(second.received).toEqual([]);
    }
  });

  it('reports the transport failure once every server failed', async () => {
    const g = group([fakeServer(() => TRANSPORT_FAILURE), fakeServer(() => TRANSPORT_FAILURE)]);
    expect(await g.send(message('a@x.test'))).toEqual(TRANSPORT_FAILURE);
  });

  it('leaves a failing server out until its cool-down ends; with all out, fails at once without trying', async () => {
    const clock = { now: 0 };
    let failing = true;
    const flaky = fakeServer(() => (failing ? TRANSPORT_FAILURE : { kind: 'sent' }));
    const steady = fakeServer(() => ({ kind: 'sent' }));
    const g = group([flaky, steady], clock);
    for (let i = 0; i < 6; i++) await g.send(message(`m${i}@x.test`));
    // Two failures left it out; the other four went straight to the steady server.
    expect(flaky.received).toHaveLength(2);
    expect(steady.received).toHaveLength(6);

    clock.now = 1000;
    failing = false;
    for (let i = 0; i < 4; i++) await g.send(message(`n${i}@x.test`));
    expect(flaky.received.length).toBeGreaterThan(2);

    const alone = group([fakeServer(() => TRANSPORT_FAILURE)], clock);
    await alone.send(message('a@x.test'));
    await alone.send(message('b@x.test'));
    expect(await alone.send(message('c@x.test'))).toMatchObject({ kind: 'deferred', transportFailure: true, error: expect.stringMatching(/left out/) });
  });
});

describe('SmtpServersTransport (D23)', () => {
  it('sends a routed From domain (any case) through its server, everything else through the spread', async () => {
    const spread = fakeServer(() => ({ kind: 'sent' }));
    const routed = fakeServer(() => ({ kind: 'sent' }));
    const t = new SmtpServersTransport(spread, new Map([['routed.test', routed]]));
    await t.send(message('a@x.test', 'news@Routed.TEST'));
    await t.send(message('b@x.test', 'news@other.test'));
    await t.send(message('c@x.test', 'news@sub.routed.test'));
    expect(routed.received).toEqual(['a@x.test']);
    expect(spread.received).toEqual(['b@x.test', 'c@x.test']);
  });
});
