/**
 * The dashboard's one way to the API: the typed client (openapi-fetch over the types generated from
 * the served OpenAPI document, packages/client), so a renamed field or path fails `tsc`. It uses the
 * same REST endpoints integrations use, authenticated by the session cookie; the middleware below
 * adds the session's CSRF token to every state-changing request and tells the app when the session
 * is gone. Every path the dashboard asks for is named here, once, by the functions at the end;
 * pages call those and never write a URL.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../packages/client/src/schema.d.ts';

/** The API's shapes, as the OpenAPI document names them. */
export type Schemas = components['schemas'];

type Json<C> = C extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation takes, for the shapes the document does not name. */
type RequestBody<P extends keyof paths, M extends keyof paths[P]> = Json<NonNullable<paths[P][M]> extends { requestBody?: infer R } ? NonNullable<R> : never>;
/** What an operation answers in `data` on success, for the shapes the document does not name. */
type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: infer R } } ? (Json<R> extends { data: infer D } ? D : never) : never;

/** The shapes the document does not name, by the operation that carries them. */
export type Automation = Answer<'/api/v1/automations/{id}', 'get'>;
export type AutomationBody = RequestBody<'/api/v1/automations', 'post'>;
export type ApiKeySummary = Answer<'/api/v1/api-keys/summary', 'get'>;
export type PreviewBody = RequestBody<'/api/v1/campaigns/{id}/preview', 'post'>;
export type BulkContact = RequestBody<'/v1/contacts/bulk', 'post'>['contacts'][number];
export type CustomFieldInfo = Answer<'/api/v1/segments/fields', 'get'>['custom_fields'][number];
export type SegmentFilter = RequestBody<'/api/v1/segments', 'post'>['filter'];
export type SendMessageBody = RequestBody<'/api/v1/messages', 'post'>;

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

/**
 * The session's part of every call: the CSRF token on what changes state; a 401 outside sign-in
 * signs the app out; a failed answer or an unreachable server is thrown as an ApiFailure in words,
 * so pages see one kind of error.
 */
const sessionMiddleware: Middleware = {
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

const api = createClient<paths>({ credentials: 'same-origin', querySerializer });
api.use(sessionMiddleware);

/** What a call answered; the middleware has thrown for any failure, so the body is there. */
async function answer<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}

/** Reference endpoints wrap their result in `data`. */
async function data<T>(call: Promise<{ data?: { data: T } }>): Promise<T> {
  return (await answer(call)).data;
}

/** D6's paging numbers, as every page carries them (a page of lists here). */
type PageInfo = Omit<Answer<'/api/v1/lists', 'get'>, 'lists'>;

interface Page<T> extends PageInfo {
  items: T[];
}

/** A page's one array: the items it holds (the rest are its numbers). */
type ItemsKey<D> = { [K in keyof D]: D[K] extends unknown[] ? K : never }[keyof D];
type ItemOf<D> = D[ItemsKey<D>] extends (infer T)[] ? T : never;

/** D6 pages name their array after what they hold; this gives it one name. */
async function pageOf<D extends PageInfo>(call: Promise<{ data?: { data: D } }>, name: NoInfer<ItemsKey<D>>): Promise<Page<ItemOf<D>>> {
  const d = await data(call);
  return { items: d[name] as ItemOf<D>[], page: d.page, size: d.size, totalElements: d.totalElements, totalPages: d.totalPages };
}

/**
 * Every item of a collection, 100 a page (for pickers: lists, segments). `name` is its own type
 * parameter so that TS takes the page's type from the callback; a wrong name makes the items never.
 */
async function allItems<D extends PageInfo, K extends string>(
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

// The endpoints, by area: the only place the dashboard names a path.
type Query<P extends keyof paths> = NonNullable<paths[P] extends { get: { parameters: { query?: infer Q } } } ? Q : never>;
const byId = (id: number) => ({ params: { path: { id } } });
const byEmail = (email: string) => ({ params: { path: { email } } });

export const session = {
  me: () => data(api.GET('/api/v1/auth/me')),
  /** Issue 34: 200 signed in or not, so a signed-out load logs no 401. */
  probe: () => data(api.GET('/api/v1/auth/session')),
  signIn: (body: RequestBody<'/api/v1/auth/login', 'post'>) => data(api.POST('/api/v1/auth/login', { body })),
  /** D24.4: "forgot password" and the mailed link's new password. */
  requestPasswordReset: (body: RequestBody<'/api/v1/auth/password-reset', 'post'>) => data(api.POST('/api/v1/auth/password-reset', { body })),
  confirmPasswordReset: (body: RequestBody<'/api/v1/auth/password-reset/confirm', 'post'>) => data(api.POST('/api/v1/auth/password-reset/confirm', { body })),
  /** D24.6: the second step of a sign-in with two-factor. */
  signInWithCode: (body: RequestBody<'/api/v1/auth/login/totp', 'post'>) => data(api.POST('/api/v1/auth/login/totp', { body })),
  /** D24.3: the invitation's mailed link; signs the new member in. */
  acceptInvitation: (body: RequestBody<'/api/v1/auth/invitations/accept', 'post'>) => data(api.POST('/api/v1/auth/invitations/accept', { body })),
  signUpStatus: () => data(api.GET('/api/v1/auth/signup')),
  signUp: (body: RequestBody<'/api/v1/auth/signup', 'post'>) => data(api.POST('/api/v1/auth/signup', { body })),
  confirmSignUp: (token: string) => data(api.POST('/api/v1/auth/signup/confirm', { body: { token } })),
  signOut: () => answer(api.POST('/api/v1/auth/logout')),
};

export const contacts = {
  page: (query: Query<'/api/v1/contacts'>) => pageOf(api.GET('/api/v1/contacts', { params: { query } }), 'contacts'),
  create: (body: RequestBody<'/api/v1/contacts', 'post'>) => data(api.POST('/api/v1/contacts', { body })),
  get: (email: string) => data(api.GET('/api/v1/contacts/{email}', byEmail(email))),
  update: (email: string, body: RequestBody<'/api/v1/contacts/{email}', 'put'>) => data(api.PUT('/api/v1/contacts/{email}', { ...byEmail(email), body })),
  remove: (email: string) => data(api.DELETE('/api/v1/contacts/{email}', byEmail(email))),
  consents: (email: string) => data(api.GET('/api/v1/contacts/{email}/consents', byEmail(email))),
  /** issue 34: the contact's activity, newest first; `cursor` is the previous page's next_cursor */
  timeline: (email: string, query: Query<'/api/v1/contacts/{email}/timeline'>) => data(api.GET('/api/v1/contacts/{email}/timeline', { params: { path: { email }, query } })),
  personalData: (email: string) => data(api.GET('/api/v1/contacts/{email}/export', byEmail(email))),
  erase: (email: string) => data(api.POST('/api/v1/contacts/{email}/erase', byEmail(email))),
  /** D14's flat integration route: its answer is not wrapped in `data`. */
  bulk: (body: RequestBody<'/v1/contacts/bulk', 'post'>) => answer(api.POST('/v1/contacts/bulk', { body })),
  /** Issue 34: the contacts the filters keep, as the CSV file `sendwell export` writes. */
  exportCsv: (query: Query<'/api/v1/contacts/export'>) => answer(api.GET('/api/v1/contacts/export', { params: { query }, parseAs: 'blob' })) as Promise<Blob>,
};

export const lists = {
  page: (query: Query<'/api/v1/lists'>) => pageOf(api.GET('/api/v1/lists', { params: { query } }), 'lists'),
  all: () => allItems((page, size) => api.GET('/api/v1/lists', { params: { query: { page, size } } }), 'lists'),
  create: (body: RequestBody<'/api/v1/lists', 'post'>) => data(api.POST('/api/v1/lists', { body })),
  update: (id: number, body: RequestBody<'/api/v1/lists/{id}', 'put'>) => data(api.PUT('/api/v1/lists/{id}', { ...byId(id), body })),
  get: (id: number) => data(api.GET('/api/v1/lists/{id}', byId(id))),
  remove: (id: number) => data(api.DELETE('/api/v1/lists/{id}', byId(id))),
  addMembers: (id: number, emails: string[]) => data(api.POST('/api/v1/lists/{id}/contacts', { ...byId(id), body: { emails } })),
  removeMember: (id: number, email: string) => data(api.DELETE('/api/v1/lists/{id}/contacts/{email}', { params: { path: { id, email } } })),
};

export const forms = {
  all: () => allItems((page, size) => api.GET('/api/v1/forms', { params: { query: { page, size } } }), 'forms'),
  get: (id: number) => data(api.GET('/api/v1/forms/{id}', byId(id))),
  create: (body: RequestBody<'/api/v1/forms', 'post'>) => data(api.POST('/api/v1/forms', { body })),
  update: (id: number, body: RequestBody<'/api/v1/forms/{id}', 'put'>) => data(api.PUT('/api/v1/forms/{id}', { ...byId(id), body })),
  remove: (id: number) => data(api.DELETE('/api/v1/forms/{id}', byId(id))),
};

export const templates = {
  all: (query?: Query<'/api/v1/templates'>) => allItems((page, size) => api.GET('/api/v1/templates', { params: { query: { ...query, page, size } } }), 'templates'),
  get: (id: number) => data(api.GET('/api/v1/templates/{id}', byId(id))),
  create: (body: RequestBody<'/api/v1/templates', 'post'>) => data(api.POST('/api/v1/templates', { body })),
  /** Issue 34: content compiled to HTML, nothing stored */
  compile: (body: RequestBody<'/api/v1/templates/compile', 'post'>) => data(api.POST('/api/v1/templates/compile', { body })),
  update: (id: number, body: RequestBody<'/api/v1/templates/{id}', 'put'>) => data(api.PUT('/api/v1/templates/{id}', { ...byId(id), body })),
  remove: (id: number) => data(api.DELETE('/api/v1/templates/{id}', byId(id))),
};

export const segments = {
  all: () => allItems((page, size) => api.GET('/api/v1/segments', { params: { query: { page, size } } }), 'segments'),
  get: (id: number) => data(api.GET('/api/v1/segments/{id}', byId(id))),
  create: (body: RequestBody<'/api/v1/segments', 'post'>) => data(api.POST('/api/v1/segments', { body })),
  update: (id: number, body: RequestBody<'/api/v1/segments/{id}', 'put'>) => data(api.PUT('/api/v1/segments/{id}', { ...byId(id), body })),
  remove: (id: number) => data(api.DELETE('/api/v1/segments/{id}', byId(id))),
  preview: (body: RequestBody<'/api/v1/segments/preview', 'post'>) => data(api.POST('/api/v1/segments/preview', { body })),
  /** The account's custom fields and tags, for pickers. */
  fields: () => data(api.GET('/api/v1/segments/fields')),
};

/** Issue 34: custom field definitions (type, label, editable by the contact in the preference centre). */
export const customFields = {
  list: async () => (await data(api.GET('/api/v1/contacts/custom-fields'))).custom_fields,
  put: async (body: RequestBody<'/api/v1/contacts/custom-fields', 'put'>) => (await data(api.PUT('/api/v1/contacts/custom-fields', { body }))).custom_fields,
};

export const suppressions = {
  page: (query: Query<'/api/v1/suppressions'>) => pageOf(api.GET('/api/v1/suppressions', { params: { query } }), 'suppressions'),
  create: (body: RequestBody<'/api/v1/suppressions', 'post'>) => data(api.POST('/api/v1/suppressions', { body })),
  remove: (id: number) => data(api.DELETE('/api/v1/suppressions/{id}', byId(id))),
};

export const domains = {
  page: (query: Query<'/api/v1/domains'>) => pageOf(api.GET('/api/v1/domains', { params: { query } }), 'domains'),
  create: (body: RequestBody<'/api/v1/domains', 'post'>) => data(api.POST('/api/v1/domains', { body })),
  update: (id: number, body: RequestBody<'/api/v1/domains/{id}', 'put'>) => data(api.PUT('/api/v1/domains/{id}', { ...byId(id), body })),
  verify: (id: number) => data(api.POST('/api/v1/domains/{id}/verify', byId(id))),
  remove: (id: number) => data(api.DELETE('/api/v1/domains/{id}', byId(id))),
};

export const media = {
  page: (query: Query<'/api/v1/media'>) => pageOf(api.GET('/api/v1/media', { params: { query } }), 'media'),
  /** D22: one image as multipart/form-data; the server judges it by its bytes. */
  upload: (file: File) =>
    data(
      api.POST('/api/v1/media', {
        // The document types a binary part as a string; the part goes as the File itself.
        body: { file: file as unknown as string },
        bodySerializer: () => {
          const form = new FormData();
          form.append('file', file, file.name);
          return form;
        },
      }),
    ),
  remove: (id: number) => data(api.DELETE('/api/v1/media/{id}', byId(id))),
};

export const campaigns = {
  page: (query: Query<'/api/v1/campaigns'>) => pageOf(api.GET('/api/v1/campaigns', { params: { query } }), 'campaigns'),
  create: (body: RequestBody<'/api/v1/campaigns', 'post'>) => data(api.POST('/api/v1/campaigns', { body })),
  get: (id: number) => data(api.GET('/api/v1/campaigns/{id}', byId(id))),
  update: (id: number, body: RequestBody<'/api/v1/campaigns/{id}', 'put'>) => data(api.PUT('/api/v1/campaigns/{id}', { ...byId(id), body })),
  audienceEstimate: (query: Query<'/api/v1/campaigns/audience-estimate'>) => data(api.GET('/api/v1/campaigns/audience-estimate', { params: { query } })),
  checks: (id: number) => data(api.GET('/api/v1/campaigns/{id}/checks', byId(id))),
  preview: (id: number, body: RequestBody<'/api/v1/campaigns/{id}/preview', 'post'>) => data(api.POST('/api/v1/campaigns/{id}/preview', { ...byId(id), body })),
  sendTest: (id: number, emails: string[]) => data(api.POST('/api/v1/campaigns/{id}/test', { ...byId(id), body: { emails } })),
  schedule: (id: number, scheduledAt: string) => data(api.POST('/api/v1/campaigns/{id}/schedule', { ...byId(id), body: { scheduled_at: scheduledAt } })),
  unschedule: (id: number) => data(api.POST('/api/v1/campaigns/{id}/unschedule', byId(id))),
  send: (id: number) => data(api.POST('/api/v1/campaigns/{id}/send', byId(id))),
  duplicate: (id: number) => data(api.POST('/api/v1/campaigns/{id}/duplicate', byId(id))),
  followUp: (id: number, audience: RequestBody<'/api/v1/campaigns/{id}/follow-up', 'post'>['audience']) => data(api.POST('/api/v1/campaigns/{id}/follow-up', { ...byId(id), body: { audience } })),
  retryFailed: (id: number) => data(api.POST('/api/v1/campaigns/{id}/retry-failed', byId(id))),
  // issue 34
  pause: (id: number) => data(api.POST('/api/v1/campaigns/{id}/pause', byId(id))),
  resume: (id: number) => data(api.POST('/api/v1/campaigns/{id}/resume', byId(id))),
  cancel: (id: number) => data(api.POST('/api/v1/campaigns/{id}/cancel', byId(id))),
  remove: (id: number) => data(api.DELETE('/api/v1/campaigns/{id}', byId(id))),
  progress: (id: number) => data(api.GET('/api/v1/campaigns/{id}/progress', byId(id))),
  statistics: (id: number) => data(api.GET('/api/v1/campaigns/{id}/statistics', byId(id))),
  engagement: (id: number) => data(api.GET('/api/v1/campaigns/{id}/engagement', byId(id))),
  recipients: (id: number, query: Query<'/api/v1/campaigns/{id}/recipients'>) => pageOf(api.GET('/api/v1/campaigns/{id}/recipients', { params: { path: { id }, query } }), 'recipients'),
  links: (id: number) => data(api.GET('/api/v1/campaigns/{id}/links', byId(id))),
  variants: (id: number) => data(api.GET('/api/v1/campaigns/{id}/variants', byId(id))),
};

export const automations = {
  page: (query: Query<'/api/v1/automations'>) => pageOf(api.GET('/api/v1/automations', { params: { query } }), 'automations'),
  get: (id: number) => data(api.GET('/api/v1/automations/{id}', byId(id))),
  create: (body: AutomationBody) => data(api.POST('/api/v1/automations', { body })),
  update: (id: number, body: AutomationBody) => data(api.PUT('/api/v1/automations/{id}', { ...byId(id), body })),
  remove: (id: number) => data(api.DELETE('/api/v1/automations/{id}', byId(id))),
  activate: (id: number) => data(api.POST('/api/v1/automations/{id}/activate', byId(id))),
  deactivate: (id: number) => data(api.POST('/api/v1/automations/{id}/deactivate', byId(id))),
  runs: (id: number, query: Query<'/api/v1/automations/{id}/runs'>) => pageOf(api.GET('/api/v1/automations/{id}/runs', { params: { path: { id }, query } }), 'runs'),
  /** issue 34 item 11: a SEND_EMAIL step rendered with sample event data, and its content checks */
  previewStep: (body: RequestBody<'/api/v1/automations/preview', 'post'>) => data(api.POST('/api/v1/automations/preview', { body })),
};

export const apiKeys = {
  page: (query: Query<'/api/v1/api-keys'>) => pageOf(api.GET('/api/v1/api-keys', { params: { query } }), 'api_keys'),
  summary: () => data(api.GET('/api/v1/api-keys/summary')),
  create: (body: RequestBody<'/api/v1/api-keys', 'post'>) => data(api.POST('/api/v1/api-keys', { body })),
  activate: (id: number) => data(api.POST('/api/v1/api-keys/{id}/activate', byId(id))),
  deactivate: (id: number) => data(api.POST('/api/v1/api-keys/{id}/deactivate', byId(id))),
  regenerate: (id: number) => data(api.POST('/api/v1/api-keys/{id}/regenerate', byId(id))),
  revoke: (id: number) => data(api.POST('/api/v1/api-keys/{id}/revoke', byId(id))),
  remove: (id: number) => data(api.DELETE('/api/v1/api-keys/{id}', byId(id))),
};

export const webhooks = {
  page: (query: Query<'/api/v1/webhooks'>) => pageOf(api.GET('/api/v1/webhooks', { params: { query } }), 'webhooks'),
  create: (body: RequestBody<'/api/v1/webhooks', 'post'>) => data(api.POST('/api/v1/webhooks', { body })),
  update: (id: number, body: RequestBody<'/api/v1/webhooks/{id}', 'put'>) => data(api.PUT('/api/v1/webhooks/{id}', { ...byId(id), body })),
  test: (id: number) => data(api.POST('/api/v1/webhooks/{id}/test', byId(id))),
  remove: (id: number) => data(api.DELETE('/api/v1/webhooks/{id}', byId(id))),
  deliveries: (id: number, query: Query<'/api/v1/webhooks/{id}/deliveries'>) => pageOf(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id }, query } }), 'deliveries'),
};

/** D25: transactional messages, one mail to one address, sent by an application. */
export const messages = {
  page: (query: Query<'/api/v1/messages'>) => pageOf(api.GET('/api/v1/messages', { params: { query } }), 'messages'),
  get: (id: number) => data(api.GET('/api/v1/messages/{id}', byId(id))),
  send: (body: RequestBody<'/api/v1/messages', 'post'>) => data(api.POST('/api/v1/messages', { body })),
  cancel: (id: number) => data(api.POST('/api/v1/messages/{id}/cancel', byId(id))),
};

/** Mail captured instead of sent while no SMTP_URL is set. */
export const devInbox = {
  page: (query: Query<'/api/v1/dev/inbox'>) => pageOf(api.GET('/api/v1/dev/inbox', { params: { query } }), 'messages'),
};

/** D24.2 */
export const members = {
  page: (query: Query<'/api/v1/members'>) => pageOf(api.GET('/api/v1/members', { params: { query } }), 'members'),
  setRole: (id: number, role: Schemas['Member']['role']) => data(api.PUT('/api/v1/members/{id}', { ...byId(id), body: { role } })),
  remove: (id: number) => data(api.DELETE('/api/v1/members/{id}', byId(id))),
};

/** D24.3 */
export const invitations = {
  page: (query: Query<'/api/v1/invitations'>) => pageOf(api.GET('/api/v1/invitations', { params: { query } }), 'invitations'),
  create: (body: RequestBody<'/api/v1/invitations', 'post'>) => data(api.POST('/api/v1/invitations', { body })),
  resend: (id: number) => data(api.POST('/api/v1/invitations/{id}/resend', byId(id))),
  revoke: (id: number) => data(api.DELETE('/api/v1/invitations/{id}', byId(id))),
};

/** D24.5, D24.6: the signed-in user's own password, sessions and two-factor sign-in. */
export const security = {
  changePassword: (body: RequestBody<'/api/v1/auth/password', 'post'>) => data(api.POST('/api/v1/auth/password', { body })),
  sessions: (query: Query<'/api/v1/auth/sessions'>) => pageOf(api.GET('/api/v1/auth/sessions', { params: { query } }), 'sessions'),
  endSession: (id: string) => data(api.DELETE('/api/v1/auth/sessions/{session_id}', { params: { path: { session_id: id } } })),
  totpSetup: () => data(api.POST('/api/v1/auth/totp/setup')),
  totpEnable: (code: string) => data(api.POST('/api/v1/auth/totp/enable', { body: { code } })),
  totpDisable: (password: string) => data(api.POST('/api/v1/auth/totp/disable', { body: { password } })),
};

/** D24.8 */
export const auditLog = {
  page: (query: Query<'/api/v1/audit-log'>) => pageOf(api.GET('/api/v1/audit-log', { params: { query } }), 'entries'),
};

/** Issue 34: the account's settings (its time zone). */
export const account = {
  get: () => data(api.GET('/api/v1/account')),
  update: (body: RequestBody<'/api/v1/account', 'put'>) => data(api.PUT('/api/v1/account', { body })),
};

export const errorText = (err: unknown) => (err instanceof Error ? err.message : 'Something went wrong.');
