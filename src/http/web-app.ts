import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The dashboard's pages (React Router's paths). Each is listed rather than caught by a wildcard,
 * so the app can never shadow /api, /v1, /t, /u, /webhooks, /health, /ready or /docs, and an
 * unknown path still gets D7's answer (401 without a key, then 404).
 */
export const DASHBOARD_PAGES = [
  '/',
  '/signin',
  '/signup',
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

/** Serves the built web app (web/dist) at `/`, from the same process as the API. */
export async function registerWebApp(app: FastifyInstance, distDir: string): Promise<void> {
  const indexFile = join(distDir, 'index.html');
  const built = existsSync(indexFile);
  const page = built ? readFileSync(indexFile) : null;

  await app.register(async (scope) => {
    // The app's files need no key; the API calls they make do (a session cookie or a key).
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, permissions: 'public' };
    });
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
    for (const url of DASHBOARD_PAGES) {
      scope.get(url, { schema: { hide: true } }, async (_req, reply) => {
        securityHeaders(reply).header('Cache-Control', 'no-cache');
        if (!page) return reply.status(503).type('text/plain; charset=utf-8').send('The dashboard is not built yet: run `npm run build:web`.\n');
        return reply.type('text/html; charset=utf-8').send(page);
      });
    }
  });
}
