/**
 * The dashboard's one way to the API: the same REST endpoints integrations use, authenticated by
 * the session cookie. Every state-changing request carries the session's CSRF token.
 */

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
function messageOf(body: any, status: number): { code: string; message: string } {
  if (body && typeof body.error === 'object' && body.error) return { code: body.error.code, message: body.error.message };
  if (body && typeof body.message === 'string') return { code: body.code ?? 'ERROR', message: body.message };
  return { code: 'HTTP_' + status, message: `The server answered ${status}.` };
}

/** `body` goes as JSON, or as multipart/form-data when it is a FormData (D22 media uploads). */
export async function request<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : form ? body : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiFailure(0, 'NETWORK', 'Could not reach the server. Check your connection and try again.');
  }
  const text = await res.text();
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: handled below
  }
  if (!res.ok) {
    const { code, message } = messageOf(parsed, res.status);
    if (res.status === 401 && !path.startsWith('/api/v1/auth/')) signedOutListeners.forEach((l) => l());
    if (res.status === 429) throw new ApiFailure(429, code, 'Too many requests right now. Wait a few seconds and try again.');
    throw new ApiFailure(res.status, code, message);
  }
  return parsed as T;
}

/** Reference endpoints wrap their result in `data`. */
export async function get<T = any>(path: string): Promise<T> {
  return (await request<{ data: T }>('GET', path)).data;
}
export async function post<T = any>(path: string, body?: unknown): Promise<T> {
  return (await request<{ data: T }>('POST', path, body ?? {})).data;
}
export async function put<T = any>(path: string, body: unknown): Promise<T> {
  return (await request<{ data: T }>('PUT', path, body)).data;
}
export async function del(path: string): Promise<void> {
  await request('DELETE', path);
}

/** Builds a query string from the set values only. */
export function query(params: Record<string, string | number | undefined | null | (string | number)[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((item) => q.append(k, String(item)));
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

/** D6 pages name their array after what they hold; this gives it one name. */
export async function getPage<T>(path: string, name: string): Promise<Page<T>> {
  const data = await get<any>(path);
  return { items: data[name], page: data.page, size: data.size, totalElements: data.totalElements, totalPages: data.totalPages };
}

/** Every item of a collection, 100 a page (for pickers: lists, segments). */
export async function getAll<T>(path: string, name: string): Promise<T[]> {
  const items: T[] = [];
  const join = path.includes('?') ? '&' : '?';
  for (let page = 0; ; page++) {
    const p = await getPage<T>(`${path}${join}size=100&page=${page}`, name);
    items.push(...p.items);
    if (page + 1 >= p.totalPages) return items;
  }
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : 'Something went wrong.');
