import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import type { TrackingRoute } from '../../rate-limit/tracking-rate-limiter.ts';
import { ApiError } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { EmptyResponse, GifResponse, HtmlResponse, RedirectResponse, trackingErrors } from '../schemas/tracking.ts';

const tags = ['Tracking'];
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const invalidLink = () => new ApiError(404, 'NOT_FOUND', 'this link is not valid');
// The smallest transparent GIF.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

function confirmPage(action: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Unsubscribe</title></head>
<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">
<h1>Unsubscribe</h1><p>Do you want to stop receiving these e-mails?</p>
<form method="post" action="${action}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>
</body></html>`;
}

const TEST_MESSAGE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test message</title></head>
<body><h1>This was a test message</h1><p>Its unsubscribe link works in real sends; here nobody was unsubscribed.</p></body></html>`;

/**
 * D16: the links inside mails. Public (mail clients carry no key); each client IP has a budget per
 * route kind (issue 14 L2), then every token is HMAC-checked.
 */
export function trackingRoutes({ signer, engagement, trackingLimiter }: Deps) {
  async function limit(route: TrackingRoute, req: FastifyRequest, reply: FastifyReply) {
    const retryAfter = await trackingLimiter.hit(route, req.ip);
    if (retryAfter === null) return;
    reply.header('Retry-After', retryAfter);
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'too many requests from this address; retry after the number of seconds in Retry-After', { retryAfter });
  }

  return {
    open: defineRoute({
      permissions: 'public',
      schema: { summary: 'Open-tracking pixel (1x1 GIF)', tags, params: TokenParams, response: { 200: GifResponse, ...trackingErrors } },
      handler: async (req, reply) => {
        await limit('open', req, reply);
        const payload = signer.verify(req.params.token, 'open');
        const test = payload ? null : signer.verify(req.params.token, 'test-open');
        const counted = payload ? await engagement.recordOpen(payload.recipientId) : test ? await engagement.isLiveTestSend(test.testSendId) : false;
        if (!counted) throw invalidLink();
        return reply.header('Cache-Control', 'no-cache, no-store, must-revalidate').type('image/gif').serializer((b: unknown) => b as string).send(PIXEL);
      },
    }),

    click: defineRoute({
      permissions: 'public',
      schema: { summary: "Click tracking: 302 to the campaign's own link", tags, params: TokenParams, response: { 302: RedirectResponse, ...trackingErrors } },
      handler: async (req, reply) => {
        await limit('click', req, reply);
        const payload = signer.verify(req.params.token, 'click');
        const test = payload ? null : signer.verify(req.params.token, 'test-click');
        const url = payload ? await engagement.recordClick(payload.recipientId, payload.link) : test ? await engagement.testLink(test.testSendId, test.link) : null;
        if (!url) throw invalidLink();
        return reply.header('Cache-Control', 'no-store').redirect(url, 302);
      },
    }),

    unsubscribePage: defineRoute({
      permissions: 'public',
      schema: { summary: 'Unsubscribe confirmation page', tags, params: TokenParams, response: { 200: HtmlResponse('The unsubscribe page'), ...trackingErrors } },
      handler: async (req, reply) => {
        await limit('unsubscribe', req, reply);
        const payload = signer.verify(req.params.token, 'unsubscribe');
        const test = payload ? null : signer.verify(req.params.token, 'test-unsubscribe');
        if (test && (await engagement.isLiveTestSend(test.testSendId))) return reply.type('text/html; charset=utf-8').serializer((b: unknown) => b as string).send(TEST_MESSAGE_PAGE);
        if (!payload || !(await engagement.isSentRecipient(payload.recipientId))) throw invalidLink();
        return reply
          .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
          .type('text/html; charset=utf-8')
          .serializer((b: unknown) => b as string)
          .send(confirmPage(`/u/${encodeURIComponent(req.params.token)}`));
      },
    }),

    unsubscribe: defineRoute({
      permissions: 'public',
      acceptAnyBody: true,
      bodyLimit: 4096,
      schema: {
        summary: 'Unsubscribe (RFC 8058 one-click and the confirmation form)',
        description: 'Answers 200 with an empty body; no redirect, no cookie needed.',
        tags,
        params: TokenParams,
        response: { 200: EmptyResponse('Unsubscribed: an empty body'), ...trackingErrors },
      },
      handler: async (req, reply) => {
        await limit('unsubscribe', req, reply);
        const payload = signer.verify(req.params.token, 'unsubscribe');
        const test = payload ? null : signer.verify(req.params.token, 'test-unsubscribe');
        // A test message's one-click POST is answered as the real one is, and changes nothing.
        const done = payload ? await engagement.unsubscribe(payload.recipientId) : test ? await engagement.isLiveTestSend(test.testSendId) : false;
        if (!done) throw invalidLink();
        return reply.status(200).serializer(() => '').send('');
      },
    }),
  };
}
