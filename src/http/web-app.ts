import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, handleError } from './errors.ts';

/**
 * The dashboard's first pages (React Router's paths), served whatever the Accept header, as they
 * were before D17.10. Every later page (`/overview`, `/settings`, `/settings/webhooks`, `/login`)
 * is reached by D17.10's one rule instead (dashboard-paths.ts, from the not-found handler): the
 * page for a browser asking for HTML outside the service's own prefixes, and D7's answer (401
 * without a key, then 404) for a JSON client.
 */
export const DASHBOARD_PAGES = [
  '/',
  '/signin',
  '/signup',
  // Issue 14 L5: where a sign-up's confirmation link leads (its token is in the fragment).
  '/signup/confirm',
  '/keys',
  '/contacts',
  '/contacts/*',
  '/lists',
  '/lists/*',
  '/campaigns',
  '/campaigns/*',
  '/automations',
  '/automations/*',
  '/inbox',
] as const;

/**
 * No inline script may run: user HTML (campaigns, captured mail) is shown only in sandboxed
 * iframes, and even if markup slipped into the page this policy keeps its scripts dead.
 * Inline styles are allowed because both sides need them: the component library (Mantine) adds
 * <style> elements for layout and theme variables, and e-mail HTML is styled inline; a srcdoc
 * frame inherits this policy, so without it every preview would lose its styling. Styles cannot
 * run code. Images may come from anywhere so campaign previews show their pictures.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('X-Frame-Options', 'DENY');
}

/** The client errors @fastify/send raises that are not simply "no such asset". */
const ASSET_CLIENT_ERRORS: Record<number, () => ApiError> = {
  400: () => new ApiError(400, 'INVALID_REQUEST', 'the asset path is not valid'),
  412: () => new ApiError(412, 'PRECONDITION_FAILED', 'the asset does not match the request\'s If-Match or If-Unmodified-Since'),
  416: () => new ApiError(416, 'RANGE_NOT_SATISFIABLE', 'the requested range is outside the asset'),
};

/**
 * Issue 14 L6: @fastify/send answers a client's mistake (a range past the end, a directory, a
 * dotfile) with an http-errors style error (`expose: true`, a 4xx `statusCode`), which the one
 * error handler took for a failure: 500, with a stack in the log. Those keep their 4xx status here
 * (a directory or dotfile, 403 from send, is simply not an asset: 404) and its headers (416's
 * Content-Range); anything else goes to the one error handler as before.
 */
function handleAssetError(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const e = err as { expose?: boolean; statusCode?: number; headers?: Record<string, string> };
  if (e.expose !== true || typeof e.statusCode !== 'number' || e.statusCode < 400 || e.statusCode >= 500) return handleError(err, req, reply);
  for (const [name, value] of Object.entries(e.headers ?? {})) reply.header(name, value);
  return handleError(ASSET_CLIENT_ERRORS[e.statusCode]?.() ?? new ApiError(404, 'NOT_FOUND', 'no such asset'), req, reply);
}

/** Answers with the dashboard's page, which routes in the browser. */
export type DashboardPage = (reply: FastifyReply) => FastifyReply;

/**
 * Serves the built web app (web/dist) at `/`, from the same process as the API. Returns the page
 * for the not-found handler: any other page a browser asks for gets it too (D17.10).
 */
export async function registerWebApp(app: FastifyInstance, distDir: string): Promise<DashboardPage> {
  const indexFile = join(distDir, 'index.html');
  const built = existsSync(indexFile);
  const page = built ? readFileSync(indexFile) : null;
  const sendPage: DashboardPage = (reply) => {
    securityHeaders(reply).header('Cache-Control', 'no-cache');
    if (!page) return reply.status(503).type('text/plain; charset=utf-8').send('The dashboard is not built yet: run `npm run build:web`.\n');
    return reply.type('text/html; charset=utf-8').send(page);
  };

  await app.register(async (scope) => {
    // The app's files need no key; the API calls they make do (a session cookie or a key).
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, permissions: 'public' };
    });
    scope.setErrorHandler(handleAssetError);
    if (built) {
      await scope.register(fastifyStatic, {
        root: join(distDir, 'assets'),
        prefix: '/assets/',
        index: false,
        // Vite names assets by content hash: a file never changes under its name.
        immutable: true,
        maxAge: '365d',
        setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
      });
    }
    for (const url of DASHBOARD_PAGES) scope.get(url, { schema: { hide: true } }, async (_req, reply) => sendPage(reply));
  });
  return sendPage;
}
