/**
 * D17.10: which requests the dashboard answers. A browser that opens a dashboard address it
 * does not know (an old bookmark, `/login`, `/settings`) must get the dashboard, whose router
 * shows the right page or says the page does not exist, never a JSON 401. Every address the
 * service answers for itself stays the service's, whatever the Accept header says.
 */
export const SERVICE_PREFIXES = [
  '/api',
  '/v1',
  '/t',
  '/u',
  '/f',
  '/c',
  '/p',
  '/w',
  '/m',
  // D22: the media library's images
  '/media',
  '/archive',
  '/health',
  '/ready',
  '/docs',
  '/metrics',
  '/webhooks',
  // The dashboard's own files: a missing one is a 404, not the page.
  '/assets',
] as const;

/** True when the path is one of the service's own, or under one (`/api`, `/api/...`, not `/apiary`). */
export function isServicePath(path: string): boolean {
  return SERVICE_PREFIXES.some((prefix) => path === prefix || path.startsWith(prefix + '/'));
}

/** Accept names text/html: a browser asking for a page (JSON clients and curl's `*\/*` do not). */
export function acceptsHtml(accept: string | undefined): boolean {
  return !!accept && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);
}

/** True for a GET a browser makes for a page (Accept names text/html) outside the service's paths. */
export function isDashboardRequest(method: string, url: string, accept: string | undefined): boolean {
  if (method !== 'GET') return false;
  if (!acceptsHtml(accept)) return false;
  const path = url.split('?')[0].split('#')[0];
  return path.startsWith('/') && !isServicePath(path);
}
