import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpParts } from '../http-parts.ts';
import type { TrackingRateLimiter, TrackingRoute } from '../../rate-limit/tracking-rate-limiter.ts';
import type { TrackingRequest } from '../../engagement/engagement.service.ts';
import { ApiError } from '../errors.ts';
import { sendPage } from '../pages/send-page.ts';
import { resubscribedPage, TEST_MESSAGE_PAGE, unsubscribedPage, unsubscribeQuestionPage } from '../pages/unsubscribe-pages.ts';
import { clientOf, defineRoute } from '../route.ts';
import { confirmedPage, confirmQuestionPage } from '../pages/confirmation-pages.ts';
import { ConfirmFormBody, ConfirmRedirect, GifResponse, HtmlResponse, RedirectResponse, trackingErrors, UnsubscribeAnswer, UnsubscribeFormBody } from '../schemas/tracking.ts';

const tags = ['Tracking'];
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
export const invalidLink = () => new ApiError(404, 'NOT_FOUND', 'this link is not valid');
// The smallest transparent GIF.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * D23: what an open or click is classified by. Fastify answers HEAD on these GET routes itself,
 * through the same handler and without the body, so a HEAD (a scanner checking a link) gets the
 * GET's status and headers, and counts as a machine.
 */
function trackingRequest(req: FastifyRequest): TrackingRequest {
  return { method: req.method, ip: req.ip, userAgent: req.headers['user-agent'] };
}

/** What a POST to `/u/{token}` asks for (D17.1): RFC 8058's exact body, or the page's `action` field. */
export function formOf(body: unknown): 'one-click' | 'unsubscribe' | 'resubscribe' {
  const text = typeof body === 'string' ? body.trim() : '';
  if (text === 'List-Unsubscribe=One-Click') return 'one-click';
  return new URLSearchParams(text).get('action') === 'resubscribe' ? 'resubscribe' : 'unsubscribe';
}

/** Issue 14 L2: counts a request to a link route against its client's budget; 429 with Retry-After past it. */
export function perClientLimit(trackingLimiter: TrackingRateLimiter) {
  return async function limit(route: TrackingRoute, req: FastifyRequest, reply: FastifyReply) {
    const retryAfter = await trackingLimiter.hit(route, req.ip);
    if (retryAfter === null) return;
    reply.header('Retry-After', retryAfter);
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'too many requests from this address; retry after the number of seconds in Retry-After', { retryAfter });
  };
}

/**
 * D16: the links inside mails. Public (mail clients carry no key); each client IP has a budget per
 * route kind (issue 14 L2), then every token is HMAC-checked.
 */
export function trackingRoutes({ signer, engagement, messageEngagement, trackingLimiter, subscriptions, forms }: Pick<HttpParts, 'signer' | 'engagement' | 'messageEngagement' | 'trackingLimiter' | 'subscriptions' | 'forms'>) {
  const limit = perClientLimit(trackingLimiter);

  // A pixel, link or trap token names a campaign recipient, a test send (counted nowhere) or
  // (issue 31) a transactional message, whose engagement follows the campaigns' rules.
  async function countOpen(token: string, request: TrackingRequest): Promise<boolean> {
    const payload = signer.verify(token, 'open');
    if (payload) return engagement.recordOpen(payload.recipientId, request);
    const message = signer.verify(token, 'message-open');
    if (message) return messageEngagement.recordOpen(message.messageId, request);
    const test = signer.verify(token, 'test-open');
    return test ? engagement.isLiveTestSend(test.testSendId) : false;
  }

  async function countClick(token: string, request: TrackingRequest): Promise<string | null> {
    const payload = signer.verify(token, 'click');
    if (payload) return engagement.recordClick(payload.recipientId, payload.link, request);
    const message = signer.verify(token, 'message-click');
    if (message) return messageEngagement.recordClick(message.messageId, message.link, request);
    const test = signer.verify(token, 'test-click');
    return test ? engagement.testLink(test.testSendId, test.link) : null;
  }

  async function countTrapHit(token: string): Promise<boolean> {
    const payload = signer.verify(token, 'trap');
    if (payload) return engagement.recordTrapHit(payload.recipientId);
    const message = signer.verify(token, 'message-trap');
    if (message) return messageEngagement.recordTrapHit(message.messageId);
    const test = signer.verify(token, 'test-trap');
    return test ? engagement.isLiveTestSend(test.testSendId) : false;
  }

  return {
    open: defineRoute({
      permissions: 'public',
      documentHead: true,
      schema: { summary: 'Open-tracking pixel (1x1 GIF)', tags, params: TokenParams, response: { 200: GifResponse, ...trackingErrors } },
      handler: async (req, reply) => {
        await limit('open', req, reply);
        const counted = await countOpen(req.params.token, trackingRequest(req));
        if (!counted) throw invalidLink();
        return reply.header('Cache-Control', 'no-cache, no-store, must-revalidate').type('image/gif').serializer((b: unknown) => b as string).send(PIXEL);
      },
    }),

    click: defineRoute({
      permissions: 'public',
      documentHead: true,
      schema: { summary: "Click tracking: 302 to the link the message held (a campaign's or a transactional message's)", tags, params: TokenParams, response: { 302: RedirectResponse, ...trackingErrors } },
      handler: async (req, reply) => {
        await limit('click', req, reply);
        const url = await countClick(req.params.token, trackingRequest(req));
        if (!url) throw invalidLink();
        return reply.header('Cache-Control', 'no-store').redirect(url, 302);
      },
    }),

    trap: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'The hidden trap link (D23)',
        description: 'D23: every HTML message carries this link hidden from people; whatever follows it is counted as a machine open and click. Answers an empty page, never a redirect.',
        tags,
        params: TokenParams,
        response: { 200: HtmlResponse('An empty page'), ...trackingErrors },
      },
      handler: async (req, reply) => {
        await limit('click', req, reply);
        const counted = await countTrapHit(req.params.token);
        if (!counted) throw invalidLink();
        return sendPage(reply, '<!doctype html><title>Sendwell</title>');
      },
    }),

    unsubscribePage: defineRoute({
      permissions: 'public',
      schema: { summary: 'Unsubscribe confirmation page', tags, params: TokenParams, response: { 200: HtmlResponse('The unsubscribe page'), ...trackingErrors } },
      handler: async (req, reply) => {
        await limit('unsubscribe', req, reply);
        const payload = signer.verify(req.params.token, 'unsubscribe');
        const test = payload ? null : signer.verify(req.params.token, 'test-unsubscribe');
        if (test && (await engagement.isLiveTestSend(test.testSendId))) return sendPage(reply, TEST_MESSAGE_PAGE);
        const facts = payload ? await engagement.unsubscribePage(payload.recipientId) : null;
        if (!payload || !facts) throw invalidLink();
        return sendPage(reply, unsubscribeQuestionPage(facts, `/u/${encodeURIComponent(req.params.token)}`));
      },
    }),

    unsubscribe: defineRoute({
      permissions: 'public',
      acceptAnyBody: true,
      bodyLimit: 4096,
      schema: {
        summary: 'Unsubscribe (RFC 8058 one-click and the confirmation form)',
        description:
          'D17.1: a body of exactly `List-Unsubscribe=One-Click` (RFC 8058, sent by mail clients) unsubscribes and answers 200 with an empty body. Any other body is the page\'s own form: `action=unsubscribe` (or none) unsubscribes and answers a confirmation page showing the address with a Subscribe again button; `action=resubscribe` makes an UNSUBSCRIBED contact SUBSCRIBED again (BOUNCED and COMPLAINED stay) and says what happened. No redirect, no cookie needed.',
        tags,
        params: TokenParams,
        body: UnsubscribeFormBody,
        response: { 200: UnsubscribeAnswer, ...trackingErrors },
      },
      handler: async (req, reply) => {
        await limit('unsubscribe', req, reply);
        const payload = signer.verify(req.params.token, 'unsubscribe');
        const test = payload ? null : signer.verify(req.params.token, 'test-unsubscribe');
        const form = formOf(req.body);
        // D17.1: RFC 8058's exact body is the mail client's one-click: an empty 200. Anything else
        // is the page's own form, answered with a page.
        if (form === 'one-click') {
          // A test message's one-click POST is answered as the real one is, and changes nothing.
          const done = payload ? await engagement.unsubscribe(payload.recipientId) : test ? await engagement.isLiveTestSend(test.testSendId) : false;
          if (!done) throw invalidLink();
          return reply.status(200).serializer(() => '').send('');
        }
        if (!payload) {
          if (test && (await engagement.isLiveTestSend(test.testSendId))) return sendPage(reply, TEST_MESSAGE_PAGE);
          throw invalidLink();
        }
        const formAction = `/u/${encodeURIComponent(req.params.token)}`;
        if (form === 'resubscribe') {
          const facts = await engagement.resubscribe(payload.recipientId);
          if (!facts) throw invalidLink();
          return sendPage(reply, resubscribedPage(facts, formAction));
        }
        if (!(await engagement.unsubscribe(payload.recipientId))) throw invalidLink();
        const facts = await engagement.unsubscribePage(payload.recipientId);
        if (!facts) throw invalidLink();
        return sendPage(reply, unsubscribedPage(facts, formAction));
      },
    }),

    confirmPage: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'Double opt-in: the confirmation page (D20)',
        description: 'D20: shows the lists waiting for confirmation and a button that POSTs back; changes nothing (mail scanners open links). A tampered link or one whose contact is gone: 404.',
        tags,
        params: TokenParams,
        response: { 200: HtmlResponse('The confirmation page'), ...trackingErrors },
      },
      handler: async (req, reply) => {
        await limit('confirm', req, reply);
        const facts = await subscriptions.confirmationFacts(req.params.token);
        if (!facts) throw invalidLink();
        // Issue 34: the confirm button's answer may lead to the form's page for the confirmed; the page's policy lets it.
        const next = await forms.confirmRedirectFor(facts.accountId, facts.contactId, facts.lists.map((l) => l.id));
        return sendPage(reply, confirmQuestionPage(facts, `/c/${encodeURIComponent(req.params.token)}`), { formAction: next ? [new URL(next).origin] : [] });
      },
    }),

    confirm: defineRoute({
      permissions: 'public',
      acceptAnyBody: true,
      bodyLimit: 4096,
      schema: {
        summary: 'Double opt-in: confirm (D20)',
        description:
          "D20: the contact's UNCONFIRMED memberships become SUBSCRIBED (a CONFIRMATION consent record with the client's address and user agent; D21: the address's ERASURE suppression goes) and a thank-you page answers, or (issue 34) a 303 to the `confirm_redirect_url` of the newest form that signed the contact up to a list just confirmed. Idempotent (a second POST confirms nothing and shows the page); the body is ignored. A tampered link: 404, never a redirect.",
        tags,
        params: TokenParams,
        body: ConfirmFormBody,
        response: { 200: HtmlResponse('The thank-you page'), 303: ConfirmRedirect, ...trackingErrors },
      },
      handler: async (req, reply) => {
        await limit('confirm', req, reply);
        const facts = await subscriptions.confirm(req.params.token, clientOf(req));
        if (!facts) throw invalidLink();
        const next = await forms.confirmRedirectFor(facts.accountId, facts.contactId, facts.lists.map((l) => l.id));
        if (next) return reply.header('Cache-Control', 'no-store').redirect(next, 303);
        return sendPage(reply, confirmedPage(facts));
      },
    }),
  };
}
