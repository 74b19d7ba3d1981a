import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpParts } from '../http-parts.ts';
import { RateLimitedError } from '../../domain/shared/errors.ts';
import { ARCHIVE_PAGE_SIZE, FEED_ITEMS, type WaitForAccountTurn } from '../../engagement/message-views.ts';
import type { AccountShare } from '../account-share.ts';
import { archiveFeed, archiveListPage, busyPage, messagePage, TEST_WEBVIEW_PAGE } from '../pages/archive-pages.ts';
import { sendMessagePage, sendPage } from '../pages/send-page.ts';
import { defineRoute, pathId } from '../route.ts';
import { documentedAs, ErrorBody, IdParams, PageQuery } from '../schemas/common.ts';
import { HtmlResponse, trackingErrors } from '../schemas/tracking.ts';
import { invalidLink, perClientLimit } from './tracking.ts';

const tags = ['Web view and archive'];
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });
const MessageParams = Type.Object({ slug: Type.String({ maxLength: 100 }), id: IdParams.properties.id });
/** D6's page (from 0); the archive's own size. */
const ArchiveQuery = Type.Object({ page: PageQuery.page });
/** How long a shared cache may keep an archive page: an archived campaign changes rarely. */
const ARCHIVE_CACHE_SECONDS = 300;

const RssResponse = documentedAs(Type.Any(), {
  description: 'RSS 2.0: the latest archived campaigns',
  content: { 'application/rss+xml': { schema: { type: 'string', contentMediaType: 'application/rss+xml' } } },
});
const busy = {
  503: HtmlResponse(
    "Issue 28: the account whose message this is already has as many messages waiting to be rendered, or as many requests waiting for its share of the server, as one account may (web views and archive pages count against the account whose content they show); a short page, with Retry-After. 503, not 429: the refusal is about the sender's messages being in demand, not about this client's requests (that is the 429).",
  ),
};
const notFound = { 404: trackingErrors[404], 429: trackingErrors[429], ...busy };

/**
 * Issue 28 H2: a public view refused because its account's render queue is full answers a small
 * page, 503 with Retry-After (the API answers the same refusal 429: there the caller is the account).
 */
function answeringBusy<Req extends FastifyRequest>(handler: (req: Req, reply: FastifyReply) => Promise<unknown>) {
  return async (req: Req, reply: FastifyReply) => {
    try {
      return await handler(req, reply);
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      reply.header('Retry-After', String(err.retryAfterSeconds));
      return sendPage(reply, busyPage(err.retryAfterSeconds), { status: 503 });
    }
  };
}

/**
 * Issue 28: a public view waits in the turn of the account whose content it shows; refused as
 * that account's busy render queue is (503 with the busy page) when too many already wait.
 */
function publicViewTurn(share: AccountShare, reply: FastifyReply): WaitForAccountTurn {
  return (accountId) => {
    const turn = share.enter(accountId, reply.raw);
    if (turn === 'refused') throw new RateLimitedError("too many requests for this sender's messages are waiting", 1);
    return turn ?? undefined;
  };
}

/**
 * D22's public views of messages: `/w/{token}` (every message's `{{ webview_url }}`) and the
 * account's archive at `/archive/{account slug}`. Public, counted per client IP like the other
 * links in mails (issue 14 L2); anything unknown (a tampered token, a slug, a campaign not in the
 * archive) is 404.
 */
export function messageViewRoutes({ messageViews, trackingLimiter, config }: Pick<HttpParts, 'messageViews' | 'trackingLimiter' | 'config'>, accountShare: AccountShare) {
  const limit = perClientLimit(trackingLimiter);
  return {
    webview: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'A message in the browser, as its recipient got it (D22)',
        description: "The page behind `{{ webview_url }}`: the recipient's message rendered again with their merge fields, variant and links (a click from it counts, as in the mail) but without the open pixel: viewing it counts no open. A test send's link shows a page saying it was a test. 404 for a tampered link, or when the contact was deleted or erased. No script runs in it (CSP with sandbox).",
        tags,
        params: TokenParams,
        response: { 200: HtmlResponse("The recipient's message"), ...trackingErrors, ...busy },
      },
      handler: answeringBusy(async (req, reply) => {
        await limit('webview', req, reply);
        const message = await messageViews.webview(req.params.token, publicViewTurn(accountShare, reply));
        if (!message) throw invalidLink();
        if (message === 'test') return sendPage(reply, TEST_WEBVIEW_PAGE);
        return sendMessagePage(reply, messagePage(message));
      }),
    }),

    archiveList: defineRoute({
      permissions: 'public',
      schema: {
        summary: "The account's public archive (D22)",
        description: `Its archived SENT campaigns, newest first, ${ARCHIVE_PAGE_SIZE} a page (\`page\`, from 0 as in D6): subject, date and link. 404 for an unknown slug.`,
        tags,
        params: SlugParams,
        querystring: ArchiveQuery,
        response: { 200: HtmlResponse('The archive page'), ...notFound },
      },
      handler: answeringBusy(async (req, reply) => {
        await limit('archive', req, reply);
        const page = req.query.page ?? 0;
        const found = await messageViews.archive(req.params.slug, { page, size: ARCHIVE_PAGE_SIZE }, publicViewTurn(accountShare, reply));
        if (!found) throw invalidLink();
        return sendPage(reply, archiveListPage(found.account, found.entries, page, Math.ceil(found.total / ARCHIVE_PAGE_SIZE)));
      }),
    }),

    archiveFeed: defineRoute({
      permissions: 'public',
      schema: {
        summary: "The account's archive as RSS 2.0 (D22)",
        description: `The latest ${FEED_ITEMS} archived SENT campaigns: title, link, guid, pubDate and a description from the message's text. 404 for an unknown slug.`,
        tags,
        params: SlugParams,
        response: { 200: RssResponse, ...notFound },
      },
      handler: answeringBusy(async (req, reply) => {
        await limit('archive', req, reply);
        const found = await messageViews.archive(req.params.slug, { page: 0, size: FEED_ITEMS }, publicViewTurn(accountShare, reply));
        if (!found) throw invalidLink();
        return reply
          .header('Cache-Control', `public, max-age=${ARCHIVE_CACHE_SECONDS}`)
          .header('X-Content-Type-Options', 'nosniff')
          .type('application/rss+xml; charset=utf-8')
          .serializer((b: unknown) => b as string)
          .send(archiveFeed(found.account, found.entries, config.publicUrl));
      }),
    }),

    archiveMessage: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'An archived campaign, with no personal data (D22)',
        description:
          'Rendered for nobody: every merge field empty, no tracking (no pixel, links as written), unsubscribe, preference and web view links inert (`#`). No script runs in it (CSP with sandbox). 404 unless the campaign is archived, SENT and of this account (a malformed id is 400, as everywhere, D2).',
        tags,
        params: MessageParams,
        response: { 200: HtmlResponse('The archived message'), 400: Type.Ref(ErrorBody, { description: 'The id is not a positive integer (INVALID_REQUEST, D2); a browser gets D26.5\'s 404 page instead' }), ...notFound },
      },
      handler: answeringBusy(async (req, reply) => {
        await limit('archive', req, reply);
        const found = await messageViews.archivedMessage(req.params.slug, pathId(req.params.id), publicViewTurn(accountShare, reply));
        if (!found) throw invalidLink();
        return sendMessagePage(reply, messagePage(found.message), { cacheSeconds: ARCHIVE_CACHE_SECONDS });
      }),
    }),
  };
}
