/**
 * The dashboard's one way to the API: the typed client (openapi-fetch over the types generated from
 * the served OpenAPI document, packages/client), so a renamed field or path fails `tsc`. It uses the
 * same REST endpoints integrations use, authenticated by the session cookie; the middleware below
 * adds the session's CSRF token to every state-changing request and tells the app when the session
 * is gone. Every URL the dashboard asks for is written in this client's calls, never by hand.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../packages/client/src/schema.d.ts';

/** The API's shapes, as the OpenAPI document names them. */
export type Schemas = components['schemas'];

type Json<C> = C extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation takes, for the shapes the document does not name. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = Json<NonNullable<paths[P][M]> extends { requestBody?: infer R } ? NonNullable<R> : never>;
/** What an operation answers in `data` on success, for the shapes the document does not name. */
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: infer R } } ? (Json<R> extends { data: infer D } ? D : never) : never;

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
const signedOutListeners = new Set<() => void>();

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the server says the session is gone (401), so the app can show the sign-in page. */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** The error message in words, whichever family (reference or flat /v1) answered. */
function messageOf(body: unknown, status: number): { code: string; message: string } {
  const b = body as { error?: { code: string; message: string }; code?: string; message?: unknown } | undefined;
  if (b && typeof b.error === 'object' && b.error) return { code: b.error.code, message: b.error.message };
  if (b && typeof b.message === 'string') return { code: b.code ?? 'ERROR', message: b.message };
  return { code: 'HTTP_' + status, message: `The server answered ${status}.` };
}

/** A failed answer becomes an ApiFailure thrown from the call, so pages see one kind of error. */
const session: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken) request.headers.set('x-csrf-token', csrfToken);
  },
  async onResponse({ response, schemaPath }) {
    if (response.ok) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(await response.clone().text());
    } catch {
      // not JSON: messageOf words it by status
    }
    const { code, message } = messageOf(body, response.status);
    // A wrong password (401 from sign-in) is not a lost session.
    if (response.status === 401 && !schemaPath.startsWith('/api/v1/auth/')) signedOutListeners.forEach((l) => l());
    if (response.status === 429) throw new ApiFailure(429, code, 'Too many requests right now. Wait a few seconds and try again.');
    throw new ApiFailure(response.status, code, message);
  },
  onError() {
    return new ApiFailure(0, 'NETWORK', 'Could not reach the server. Check your connection and try again.');
  },
};

/** Builds a query string from the set values only: an empty search box asks for no filter. */
function querySerializer(params: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((item) => q.append(k, String(item)));
    else q.set(k, String(v));
  }
  return q.toString();
}

export const api = createClient<paths>({ credentials: 'same-origin', querySerializer });
api.use(session);

/** What a call answered; the middleware has thrown for any failure, so the body is there. */
export async function answer<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}

/** Reference endpoints wrap their result in `data`. */
export async function data<T>(call: Promise<{ data?: { data: T } }>): Promise<T> {
  return (await answer(call)).data;
}

interface PageInfo {
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

export interface Page<T> extends PageInfo {
  items: T[];
}

/** A page's one array: the items it holds (the rest are its numbers). */
type ItemsKey<D> = { [K in keyof D]: D[K] extends unknown[] ? K : never }[keyof D];
type ItemOf<D> = D[ItemsKey<D>] extends (infer T)[] ? T : never;

/** D6 pages name their array after what they hold; this gives it one name. */
export async function pageOf<D extends PageInfo>(call: Promise<{ data?: { data: D } }>, name: NoInfer<ItemsKey<D>>): Promise<Page<ItemOf<D>>> {
  const d = await data(call);
  return { items: d[name] as ItemOf<D>[], page: d.page, size: d.size, totalElements: d.totalElements, totalPages: d.totalPages };
}

/**
 * Every item of a collection, 100 a page (for pickers: lists, segments). `name` is its own type
 * parameter so that TS takes the page's type from the callback; a wrong name makes the items never.
 */
export async function allItems<D extends PageInfo, K extends string>(
  pageAt: (page: number, size: number) => Promise<{ data?: { data: D } }>,
  name: K,
): Promise<K extends ItemsKey<D> ? ItemOf<D>[] : never> {
  const items: unknown[] = [];
  for (let n = 0; ; n++) {
    const d = await data(pageAt(n, 100));
    items.push(...(d as unknown as Record<string, unknown[]>)[name]);
    if (n + 1 >= d.totalPages) return items as K extends ItemsKey<D> ? ItemOf<D>[] : never;
  }
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : 'Something went wrong.');
