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
