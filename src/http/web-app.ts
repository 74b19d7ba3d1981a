import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
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
 * iframes, and even if markup slipped into the page this policy keeps its scripts dead. The
 * component library (Mantine) adds <style> elements for layout and theme variables; they carry
 * a nonce made for each page load, so no 'unsafe-inline' is needed. Images may come from
 * anywhere so campaign previews show their pictures.
 */
export function contentSecurityPolicy(styleNonce: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data: https: http:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Where index.html (web/index.html) holds the style nonce for the app to hand to Mantine. */
const NONCE_PLACEHOLDER = '__STYLE_NONCE__';

function securityHeaders(reply: FastifyReply, styleNonce: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', contentSecurityPolicy(styleNonce))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('X-Frame-Options', 'DENY');
}

/** Serves the built web app (web/dist) at `/`, from the same process as the API. */
export async function registerWebApp(app: FastifyInstance, distDir: string): Promise<void> {
  const indexFile = join(distDir, 'index.html');
  const built = existsSync(indexFile);
  const page = built ? readFileSync(indexFile, 'utf8') : null;

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
        const nonce = randomBytes(16).toString('base64');
        securityHeaders(reply, nonce).header('Cache-Control', 'no-store');
        if (!page) return reply.status(503).type('text/plain; charset=utf-8').send('The dashboard is not built yet: run `npm run build:web`.\n');
        return reply.type('text/html; charset=utf-8').send(page.replaceAll(NONCE_PLACEHOLDER, nonce));
      });
    }
  });
}
