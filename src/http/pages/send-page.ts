import type { FastifyReply } from 'fastify';

/**
 * The public pages (unsubscribe, sign-up forms): no script, no outside resource, and forms only
 * back to this server, plus `formAction`, the origins a form's answer may redirect to (browsers
 * hold a form's redirects to form-action too).
 */
export function sendPage(reply: FastifyReply, html: string, opts: { status?: number; formAction?: string[] } = {}) {
  const formAction = ["'self'", ...(opts.formAction ?? [])].join(' ');
  return reply
    .status(opts.status ?? 200)
    .header('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; base-uri 'none'`)
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .serializer((b: unknown) => b as string)
    .send(html);
}

/**
 * D22: a message's own HTML on this origin (the web view, the archive). It is the account's
 * content, so it gets no script at all, a sandbox (an opaque origin: nothing in it can reach this
 * origin's cookies or the dashboard even if a browser ran something), images, styles and fonts
 * from anywhere as mail has them, no forms, and no Referer for its links (a web view's URL holds
 * its token). `cache`: how long a shared cache may keep it (the archive), else not at all.
 */
export function sendMessagePage(reply: FastifyReply, html: string, opts: { cacheSeconds?: number } = {}) {
  return reply
    .header(
      'Content-Security-Policy',
      "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline' https:; font-src https: data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation",
    )
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', opts.cacheSeconds ? `public, max-age=${opts.cacheSeconds}` : 'no-store')
    .type('text/html; charset=utf-8')
    .serializer((b: unknown) => b as string)
    .send(html);
}
