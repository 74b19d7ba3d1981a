import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import type { HttpParts } from './http-parts.ts';
import { ApiError } from './errors.ts';
import { isSuccessEnvelope, type RouteDef } from './route.ts';
import { documentedSchema, operationSchema } from './openapi-document.ts';
import { unknownFieldWarnings, unknownFields } from './unknown-fields.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { automationRoutes } from './routes/automations.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { authRoutes } from './routes/auth.ts';
import { ssoRoutes } from './routes/sso.ts';
import { accountRoutes } from './routes/account.ts';
import { accountSecurityRoutes } from './routes/account-security.ts';
import { requireSession, type SessionAuthenticator } from './session-auth.ts';
import { isDashboardRequest } from './dashboard-paths.ts';
import type { DashboardPage } from './web-app.ts';
import { campaignInsightRoutes } from './routes/campaign-insights.ts';
import { campaignRoutes } from './routes/campaigns.ts';
import { contactRoutes } from './routes/contacts.ts';
import { listRoutes } from './routes/lists.ts';
import { formRoutes } from './routes/forms.ts';
import { customFieldRoutes } from './routes/custom-fields.ts';
import { mediaRoutes } from './routes/media.ts';
import { messageRoutes } from './routes/messages.ts';

import { templateRoutes } from './routes/templates.ts';
import { segmentRoutes } from './routes/segments.ts';
import { suppressionRoutes } from './routes/suppressions.ts';
import { domainRoutes } from './routes/domains.ts';
import { devInboxRoutes } from './routes/dev-inbox.ts';
import { systemRoutes } from './routes/system.ts';
import { trackingRoutes } from './routes/tracking.ts';
import { preferenceCentreRoutes } from './routes/preference-centre.ts';
import { messageViewRoutes } from './routes/message-views.ts';
import type { AccountShare } from './account-share.ts';
import { providerFeedbackRoutes } from './routes/provider-feedback.ts';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.ts';
import { auditLogRoutes } from './routes/audit-log.ts';
import { memberRoutes } from './routes/members.ts';

/** The route table: every endpoint the service answers, top to bottom. */
export function registerRoutes(app: FastifyInstance, parts: HttpParts, sessions: SessionAuthenticator, accountShare: AccountShare): void {
  const system = systemRoutes(parts, app);
  const contacts = contactRoutes(parts);
  const lists = listRoutes(parts);
  const forms = formRoutes(parts);
  const customFields = customFieldRoutes(parts);
  const templates = templateRoutes(parts);
  const segments = segmentRoutes(parts);
  const suppressions = suppressionRoutes(parts);
  const domains = domainRoutes(parts);
  const media = mediaRoutes(parts);
  const campaigns = campaignRoutes(parts);
  const messages = messageRoutes(parts);
  const keys = apiKeyRoutes(parts);
  const automations = automationRoutes(parts);
  const integrations = integrationRoutes(parts);
  const auth = authRoutes(parts, sessions);
  const sso = ssoRoutes(parts);
  const security = accountSecurityRoutes(parts, sessions);
  const insights = campaignInsightRoutes(parts);
  const devInbox = devInboxRoutes(parts);
  const tracking = trackingRoutes(parts);
  const preferences = preferenceCentreRoutes(parts);
  const views = messageViewRoutes(parts, accountShare);
  const feedback = providerFeedbackRoutes(parts);
  const webhookEndpoints = webhookEndpointRoutes(parts);
  const auditLog = auditLogRoutes(parts);
  const members = memberRoutes(parts);
  const account = accountRoutes(parts);

  const table: [HTTPMethods, string, RouteDef][] = [
    ['GET', '/health', system.health],
    ['GET', '/ready', system.ready],
    ['GET', '/metrics', system.metrics],
    ['GET', '/api/v1/openapi.json', system.openapi],

    // Issue 34: custom field definitions (editable by the contact in the preference centre).
    ['GET', '/api/v1/contacts/custom-fields', customFields.list],
    ['PUT', '/api/v1/contacts/custom-fields', customFields.put],
    ['POST', '/api/v1/contacts', contacts.create],
    ['GET', '/api/v1/contacts', contacts.page],
    // Issue 34: the contacts list's filters as CSV, the file `sendwell export` writes.
    ['GET', '/api/v1/contacts/export', contacts.exportCsv],
    ['GET', '/api/v1/contacts/:email', contacts.get],
    ['PUT', '/api/v1/contacts/:email', contacts.update],
    ['DELETE', '/api/v1/contacts/:email', contacts.delete],
    // D21: a person's data, exported or erased.
    ['GET', '/api/v1/contacts/:email/export', contacts.exportData],
    ['POST', '/api/v1/contacts/:email/erase', contacts.erase],
    // D20: where each subscription came from.
    ['GET', '/api/v1/contacts/:email/consents', contacts.consents],
    ['GET', '/api/v1/contacts/:email/timeline', contacts.timeline],

    ['POST', '/api/v1/lists', lists.create],
    ['GET', '/api/v1/lists', lists.page],
    ['GET', '/api/v1/lists/:id', lists.get],
    ['PUT', '/api/v1/lists/:id', lists.update],
    ['DELETE', '/api/v1/lists/:id', lists.delete],
    ['POST', '/api/v1/lists/:id/contacts', lists.addContacts],
    ['GET', '/api/v1/lists/:id/contacts', lists.members],
    ['DELETE', '/api/v1/lists/:id/contacts/:email', lists.removeContact],

    // D20: sign-up forms; each is public at /f/{uid} (below).
    ['POST', '/api/v1/forms', forms.create],
    ['GET', '/api/v1/forms', forms.page],
    ['GET', '/api/v1/forms/:id', forms.get],
    ['PUT', '/api/v1/forms/:id', forms.update],
    ['DELETE', '/api/v1/forms/:id', forms.delete],
    // D22: layouts and starters, the built-in gallery included (read-only).
    ['POST', '/api/v1/templates', templates.create],
    ['POST', '/api/v1/templates/compile', templates.compile],
    ['GET', '/api/v1/templates', templates.page],
    ['GET', '/api/v1/templates/:id', templates.get],
    ['PUT', '/api/v1/templates/:id', templates.update],
    ['DELETE', '/api/v1/templates/:id', templates.delete],

    // D18: saved filters over contacts.
    ['POST', '/api/v1/segments', segments.create],
    ['GET', '/api/v1/segments', segments.page],
    ['POST', '/api/v1/segments/preview', segments.preview],
    ['GET', '/api/v1/segments/fields', segments.fields],
    ['GET', '/api/v1/segments/:id', segments.get],
    ['PUT', '/api/v1/segments/:id', segments.update],
    ['DELETE', '/api/v1/segments/:id', segments.delete],
    ['GET', '/api/v1/segments/:id/contacts', segments.contacts],

    // D19: never mailed, whatever the contact's status.
    ['GET', '/api/v1/suppressions', suppressions.page],
    ['POST', '/api/v1/suppressions', suppressions.add],
    ['DELETE', '/api/v1/suppressions/:id', suppressions.delete],

    // D23: where mail comes from: DKIM keys, DNS checks, warm-up.
    ['POST', '/api/v1/domains', domains.create],
    ['GET', '/api/v1/domains', domains.page],
    ['GET', '/api/v1/domains/:id', domains.get],
    ['PUT', '/api/v1/domains/:id', domains.update],
    ['DELETE', '/api/v1/domains/:id', domains.delete],
    ['POST', '/api/v1/domains/:id/verify', domains.verify],

    // D22: the account's images, each public at /media/{file} (below).
    ['POST', '/api/v1/media', media.upload],
    ['GET', '/api/v1/media', media.page],
    ['GET', '/api/v1/media/:id', media.get],
    ['DELETE', '/api/v1/media/:id', media.delete],

    ['POST', '/api/v1/campaigns', campaigns.create],
    ['GET', '/api/v1/campaigns', campaigns.page],
    ['GET', '/api/v1/campaigns/:id', campaigns.get],
    ['PUT', '/api/v1/campaigns/:id', campaigns.update],
    ['DELETE', '/api/v1/campaigns/:id', campaigns.delete],
    ['GET', '/api/v1/campaigns/:id/statistics', campaigns.statistics],
    ['GET', '/api/v1/campaigns/:id/checks', campaigns.checks],
    ['POST', '/api/v1/campaigns/:id/send', campaigns.send],
    ['POST', '/api/v1/campaigns/:id/schedule', campaigns.schedule],
    ['POST', '/api/v1/campaigns/:id/unschedule', campaigns.unschedule],
    ['POST', '/api/v1/campaigns/:id/pause', campaigns.pause],
    ['POST', '/api/v1/campaigns/:id/resume', campaigns.resume],
    ['POST', '/api/v1/campaigns/:id/cancel', campaigns.cancel],
    ['POST', '/api/v1/campaigns/:id/test', campaigns.test],
    ['POST', '/api/v1/campaigns/:id/duplicate', campaigns.duplicate],
    ['POST', '/api/v1/campaigns/:id/preview', campaigns.preview],
    ['POST', '/api/v1/campaigns/:id/follow-up', campaigns.followUp],
    // D19: who got it, who did not and why, and what to do about it.
    ['GET', '/api/v1/campaigns/:id/recipients', campaigns.recipients],
    ['GET', '/api/v1/campaigns/:id/links', campaigns.links],
    ['POST', '/api/v1/campaigns/:id/retry-failed', campaigns.retryFailed],
    // D23: the A/B test's variants, each with its share, engagement and whether it won.
    ['GET', '/api/v1/campaigns/:id/variants', campaigns.variants],
    // Dashboard additions (issue 6): read-only views for the campaign pages.
    ['GET', '/api/v1/campaigns/audience-estimate', insights.audienceEstimate],
    ['GET', '/api/v1/campaigns/:id/progress', insights.progress],
    ['GET', '/api/v1/campaigns/:id/engagement', insights.engagement],

    // D25: transactional mail, one message to one address, ahead of campaigns.
    ['POST', '/api/v1/messages', messages.send],
    ['POST', '/api/v1/messages/batch', messages.batch],
    ['GET', '/api/v1/messages', messages.page],
    ['GET', '/api/v1/messages/:id', messages.get],
    ['POST', '/api/v1/messages/:id/cancel', messages.cancel],

    ['POST', '/api/v1/automations', automations.create],
    ['POST', '/api/v1/automations/preview', automations.previewStep],
    ['GET', '/api/v1/automations', automations.page],
    ['GET', '/api/v1/automations/:id', automations.get],
    ['PUT', '/api/v1/automations/:id', automations.update],
    ['DELETE', '/api/v1/automations/:id', automations.delete],
    ['POST', '/api/v1/automations/:id/activate', automations.activate],
    ['POST', '/api/v1/automations/:id/deactivate', automations.deactivate],
    ['POST', '/api/v1/automations/:id/stop', automations.stop],
    ['GET', '/api/v1/automations/:id/runs', automations.runs],

    ['GET', '/api/v1/api-keys', keys.page],
    ['POST', '/api/v1/api-keys', keys.create],
    ['GET', '/api/v1/api-keys/summary', keys.summary],
    ['GET', '/api/v1/api-keys/:id', keys.get],
    ['PUT', '/api/v1/api-keys/:id', keys.update],
    ['DELETE', '/api/v1/api-keys/:id', keys.delete],
    ['POST', '/api/v1/api-keys/:id/deactivate', keys.deactivate],
    ['POST', '/api/v1/api-keys/:id/activate', keys.activate],
    ['POST', '/api/v1/api-keys/:id/regenerate', keys.regenerate],
    ['POST', '/api/v1/api-keys/:id/revoke', keys.revoke],

    ['POST', '/v1/contacts/bulk', integrations.bulk],
    ['POST', '/v1/events', integrations.event],
    ['GET', '/v1/campaigns/:id/stats', integrations.stats],

    ['POST', '/api/v1/webhooks', webhookEndpoints.create],
    ['GET', '/api/v1/webhooks', webhookEndpoints.page],
    ['GET', '/api/v1/webhooks/:id', webhookEndpoints.get],
    ['PUT', '/api/v1/webhooks/:id', webhookEndpoints.update],
    ['DELETE', '/api/v1/webhooks/:id', webhookEndpoints.delete],
    ['POST', '/api/v1/webhooks/:id/rotate-secret', webhookEndpoints.rotateSecret],
    ['POST', '/api/v1/webhooks/:id/test', webhookEndpoints.test],
    ['GET', '/api/v1/webhooks/:id/deliveries', webhookEndpoints.deliveries],

    ['GET', '/api/v1/dev/inbox', devInbox.page],

    // D24.8: read-only; no route changes or deletes an entry.
    ['GET', '/api/v1/audit-log', auditLog.page],
    // D24.2, D24.3: the account's members and invitations.
    ['GET', '/api/v1/members', members.page],
    ['PUT', '/api/v1/members/:id', members.changeRole],
    ['DELETE', '/api/v1/members/:id', members.remove],
    ['POST', '/api/v1/invitations', members.invite],
    ['GET', '/api/v1/invitations', members.invitations],
    ['DELETE', '/api/v1/invitations/:id', members.revoke],
    ['POST', '/api/v1/invitations/:id/resend', members.resend],
    // Issue 34: the account's own settings (its time zone).
    ['GET', '/api/v1/account', account.get],
    ['PUT', '/api/v1/account', account.update],

    ['GET', '/api/v1/auth/signup', auth.signUpStatus],
    ['POST', '/api/v1/auth/signup', auth.signUp],
    ['POST', '/api/v1/auth/signup/confirm', auth.confirmSignUp],
    ['POST', '/api/v1/auth/login', auth.logIn],
    ['POST', '/api/v1/auth/logout', auth.logOut],
    ['GET', '/api/v1/auth/me', auth.me],
    ['GET', '/api/v1/auth/session', auth.session],
    // D24.7: single sign-on with OpenID Connect.
    ['GET', '/api/v1/auth/oidc/start', sso.start],
    ['GET', '/api/v1/auth/oidc/callback', sso.callback],
    // D24.4-D24.6: password reset, own password and sessions, two-factor sign-in.
    ['POST', '/api/v1/auth/password-reset', security.requestReset],
    ['POST', '/api/v1/auth/password-reset/confirm', security.confirmReset],
    ['POST', '/api/v1/auth/password', security.changePassword],
    ['GET', '/api/v1/auth/sessions', security.sessions],
    ['DELETE', '/api/v1/auth/sessions/:session_id', security.endSession],
    ['POST', '/api/v1/auth/totp/setup', security.totpSetup],
    ['POST', '/api/v1/auth/totp/enable', security.totpEnable],
    ['POST', '/api/v1/auth/totp/disable', security.totpDisable],
    ['POST', '/api/v1/auth/login/totp', security.totpSignIn],
    // D24.3: follows an invitation's link (public, like sign-in).
    ['POST', '/api/v1/auth/invitations/accept', auth.acceptInvitation],

    ['GET', '/t/o/:token', tracking.open],
    ['GET', '/t/c/:token', tracking.click],
    ['GET', '/t/t/:token', tracking.trap],
    ['GET', '/u/:token', tracking.unsubscribePage],
    ['POST', '/u/:token', tracking.unsubscribe],
    // D20: the preference centre in every campaign message's footer, with D21's export and erasure.
    ['GET', '/p/:token', preferences.page],
    ['POST', '/p/:token', preferences.post],
    // D22: every message's web view, and the account's public archive.
    ['GET', '/w/:token', views.webview],
    ['GET', '/archive/:slug', views.archiveList],
    ['GET', '/archive/:slug/feed.xml', views.archiveFeed],
    ['GET', '/archive/:slug/:id', views.archiveMessage],
    // D20: the double opt-in link.
    ['GET', '/c/:token', tracking.confirmPage],
    ['POST', '/c/:token', tracking.confirm],
    // D20: the hosted sign-up form and where every copy of it posts, from any origin.
    ['GET', '/f/:uid', forms.hostedPage],
    ['POST', '/f/:uid', forms.submit],
    ['OPTIONS', '/f/:uid', forms.preflight],

    ['GET', '/media/:file', media.file],
    // D26.4: the built-in templates' pictures, shipped with the service.
    ['GET', '/media/builtin/:file', media.builtinFile],

    ['POST', '/webhooks/ses', feedback.ses],
    ['POST', '/webhooks/sendgrid', feedback.sendgrid],
    ['POST', '/webhooks/generic', feedback.generic],
  ];

  const register = (scope: FastifyInstance, method: HTTPMethods, url: string, def: RouteDef) => {
    // Issue 15: the body's unknown fields are still ignored (D7) but named in the answer's `warnings`.
    const bodySchema = def.schema.body ? (documentedSchema(def.schema.body) as Record<string, unknown>) : undefined;
    scope.route({
      method,
      url,
      schema: operationSchema(method, url, def),
      config: { permissions: def.permissions, anySession: def.anySession, nulCheckedByHandler: def.nulCheckedByHandler, multipart: def.multipart, ...(def.documentHead ? { swagger: { exposeHeadRoute: true } } : {}) },
      bodyLimit: def.bodyLimit,
      // D24.5-D24.6: the signed-in person's own routes find the session before the body is read or judged (D8's order).
      onRequest: def.sessionOnly
        ? async (req: FastifyRequest) => {
            req.dashboardSession = await requireSession(sessions, req);
          }
        : undefined,
      preValidation: bodySchema
        ? (req, _reply, done) => {
            const fields = unknownFields(bodySchema, req.body);
            if (fields.length) req.warnings = unknownFieldWarnings(fields);
            done();
          }
        : undefined,
      handler: async (req, reply) => {
        const body = await def.handler(req as never, reply);
        if (def.status) reply.status(def.status);
        return req.warnings && isSuccessEnvelope(body) ? { ...body, warnings: req.warnings } : body;
      },
    });
  };

  const ownScope = (def: RouteDef) => def.acceptAnyBody || def.setsCookies || def.multipart;
  for (const [method, url, def] of table) if (!ownScope(def)) register(app, method, url, def);
  // RFC 8058's one-click POST arrives as a form; only these routes read non-JSON bodies (as text).
  // JSON too stays raw text here: webhook signatures cover the exact bytes (SNS posts text/plain).
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    for (const [method, url, def] of table) if (def.acceptAnyBody) register(scope, method, url, def);
  });

  // The cookie plugin adds an onSend hook to every route of its scope: only sign-in routes get it.
  void app.register(async (scope) => {
    await scope.register(fastifyCookie, { hook: false });
    for (const [method, url, def] of table) if (def.setsCookies) register(scope, method, url, def);
  });

  // D22: the multipart parser and its hooks only where an upload is taken; every other route keeps JSON only.
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart);
    for (const [method, url, def] of table) if (def.multipart) register(scope, method, url, def);
  });

}

/**
 * D7: unknown routes still authenticate first (the auth hook runs for them), then 404 NOT_FOUND.
 * D17.10: a page a browser asks for outside the service's paths is the dashboard's (the auth hook
 * lets it through), so `/login` or an old bookmark shows the app, never a JSON 401.
 */
export function registerNotFound(app: FastifyInstance, dashboardPage: DashboardPage) {
  app.setNotFoundHandler(async (req, reply) => {
    if (isDashboardRequest(req.method, req.url, req.headers.accept)) return dashboardPage(reply);
    throw new ApiError(404, 'NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`);
  });
}
