import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpParts } from '../http-parts.ts';
import { returnToUrl, type Form } from '../../domain/forms/form.ts';
import { describeProblems, readSubmission } from '../../domain/forms/form-submission.ts';
import type { PublicForm } from '../../domain/forms/forms.service.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { ApiError } from '../errors.ts';
import { parseJsonBody } from '../json-body.ts';
import { embedHtml, FORM_MISSING_PAGE, formAnswerPage, hostedFormPage, hostedFormUrl, successMessageOf, tooManyPage } from '../pages/form-pages.ts';
import { sendPage } from '../pages/send-page.ts';
import { clientOf, defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import { CreateFormBody, FormObject, HostedFormQuery, FormPage, FormUidParams, formPublicErrors, SubmissionAccepted, SubmissionBody, SubmissionRedirect, submissionErrors, UpdateFormBody } from '../schemas/forms.ts';

const tags = ['Forms'];
const notFound = { 404: 'FORM_NOT_FOUND' };

/**
 * The largest submission body. A form has at most 20 fields of at most 1000 characters, which
 * form-encoding can make 12 bytes each (a 4-byte character is 12 percent-escaped bytes).
 */
export const SUBMISSION_BODY_LIMIT = 256 * 1024;

/** D20: any site may post a form by script (a JSON fetch); no cookie is ever read, so no credentials are allowed. */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Accept',
  'Access-Control-Max-Age': '86400',
};

/**
 * D20: JSON when the request's Accept asks for it, HTML when it names HTML (a browser's form post);
 * with neither (`*∕*`, none: a script or curl), the answer follows the body's own type.
 */
function answersJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  if (/text\/html/i.test(accept)) return false;
  if (/application\/json/i.test(accept)) return true;
  return /^application\/json\b/i.test(req.headers['content-type'] ?? '');
}

/** The submitted values: a form-encoded body (a name given twice: a list) or a JSON object; anything else is 415. */
function submittedValues(req: FastifyRequest): Record<string, unknown> {
  const text = typeof req.body === 'string' ? req.body : '';
  if (text.trim() === '') return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const values: Record<string, unknown> = Object.create(null);
    for (const [name, value] of new URLSearchParams(text)) {
      const before = values[name];
      values[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
    }
    return values;
  }
  if (type === 'application/json') {
    const body = parseJsonBody(text);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'INVALID_REQUEST', 'the body must be a JSON object of the form\'s fields');
    return body as Record<string, unknown>;
  }
  throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the form as application/x-www-form-urlencoded or application/json');
}

/**
 * Issue 34: where the visitor came from, for the thank-you page's link: the page's `return_to`,
 * else the Referer, unless that is this form's own hosted page (a link back to the form it just
 * used is no way back). Only ever shown as a link.
 */
function cameFrom(req: FastifyRequest, given: string | null, uid: string): string | null {
  if (given) return given;
  const referer = returnToUrl(req.headers.referer);
  if (!referer) return null;
  const { host, pathname } = new URL(referer);
  return host === req.headers.host && pathname === `/f/${uid}` ? null : referer;
}

/** The origins a page's form may be redirected to after posting (its CSP's form-action). */
const redirectOrigins = (form: Form) => (form.redirect_url ? [new URL(form.redirect_url).origin] : []);

export function formRoutes({ forms, formLimiter, config }: Pick<HttpParts, 'forms' | 'formLimiter' | 'config'>) {
  /** The API's form: the stored one plus where it lives and how to embed it (from PUBLIC_URL). */
  const present = (form: Form) => ({ ...form, hosted_url: hostedFormUrl(form, config.publicUrl), embed_html: embedHtml(form, config.publicUrl) });

  /** The form behind the uid, or 404: a page for a browser, D7's body for JSON. */
  async function openOr404(req: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply, json: boolean): Promise<PublicForm | null> {
    try {
      return await forms.open(req.params.uid);
    } catch (err) {
      if (json || !(err instanceof NotFoundError)) throw err;
      await sendPage(reply, FORM_MISSING_PAGE, { status: 404 });
      return null;
    }
  }

  return {
    create: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Create a sign-up form',
        description: 'D20: a form that signs people up to public lists, hosted at /f/{uid} and embeddable anywhere.',
        tags,
        body: CreateFormBody,
        response: { 200: Written(FormObject), ...errorResponses(false) },
      },
      handler: async (req) => written(present(await forms.create(actingOf(req), req.auth.accountId, req.body)), 'Form created'),
    }),

    page: defineRoute({
      permissions: ['lists.read'],
      schema: { summary: 'Page through sign-up forms, oldest first', tags, querystring: Type.Object(PageQuery), response: { 200: Read(PageOf('forms', FormObject)), ...errorResponses(false) } },
      handler: async (req) => {
        const page = await forms.page(req.auth.accountId, req.query);
        return read({ ...page, forms: page.forms.map(present) });
      },
    }),

    get: defineRoute({
      permissions: ['lists.read'],
      schema: { summary: 'Read a sign-up form', tags, params: IdParams, response: { 200: Read(FormObject), ...errorResponses(false, notFound) } },
      handler: async (req) => read(present(await forms.get(req.auth.accountId, pathId(req.params.id)))),
    }),

    update: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Update a sign-up form',
        description: 'Omitted fields keep their value; `fields` and `list_ids` replace. The uid, and so the hosted URL and embed code, stay the same.',
        tags,
        params: IdParams,
        body: UpdateFormBody,
        response: { 200: Written(FormObject), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(present(await forms.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body)), 'Form updated'),
    }),

    delete: defineRoute({
      permissions: ['lists.write'],
      schema: {
        summary: 'Delete a sign-up form',
        description: 'Its hosted page and embed code answer 404 from now on. Contacts and memberships it made stay.',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await forms.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Form deleted');
      },
    }),

    hostedPage: defineRoute({
      permissions: 'public',
      schema: { summary: 'The hosted sign-up form (HTML)', tags, params: FormUidParams, querystring: HostedFormQuery, response: { 200: FormPage, 404: formPublicErrors[404] } },
      handler: async (req, reply) => {
        const published = await openOr404(req, reply, answersJson(req));
        if (!published) return reply;
        const query = req.query as Record<string, unknown>;
        const returnTo = cameFrom(req, returnToUrl(query.return_to), published.form.uid);
        return sendPage(reply, hostedFormPage(published.form, `/f/${published.form.uid}`, { returnTo }), { formAction: redirectOrigins(published.form) });
      },
    }),

    preflight: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'CORS preflight for a sign-up posted by script',
        description: 'Any origin may post a form with fetch(); no credentials.',
        tags,
        params: FormUidParams,
        response: { 204: Type.Null({ description: 'Access-Control-Allow-Origin: *, and the methods and headers a submission uses' }) },
      },
      handler: async (_req, reply) => reply.status(204).headers(CORS_HEADERS).send(),
    }),

    submit: defineRoute({
      permissions: 'public',
      acceptAnyBody: true,
      bodyLimit: SUBMISSION_BODY_LIMIT,
      schema: {
        summary: 'Sign up through a form (form-encoded or JSON)',
        description:
          'D20: a new address becomes a contact with the fields given; an existing contact keeps its fields and status and only gains memberships. ' +
          'A `double` list makes the membership UNCONFIRMED and sends a confirmation mail; a `single` one makes it SUBSCRIBED. ' +
          'At most 10 submissions a minute per client address and form, the refused and the honeypot ones included. Any origin may post (CORS, no credentials).',
        tags,
        params: FormUidParams,
        body: SubmissionBody,
        response: { 200: SubmissionAccepted, 303: SubmissionRedirect, ...submissionErrors },
      },
      handler: async (req, reply) => {
        reply.headers(CORS_HEADERS);
        const json = answersJson(req);
        const published = await openOr404(req, reply, json);
        if (!published) return reply;
        const { form } = published;
        const page = { formAction: redirectOrigins(form) };

        const retryAfter = await formLimiter.hit(form.uid, req.ip);
        if (retryAfter !== null) {
          reply.header('Retry-After', retryAfter);
          if (!json) return sendPage(reply, tooManyPage(retryAfter), { status: 429 });
          throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'too many submissions from this address to this form; retry after the number of seconds in Retry-After', { retryAfter });
        }

        const values = submittedValues(req);
        const submission = readSubmission(form.fields, values, { consentText: form.consent_text });
        if (submission.kind === 'invalid') {
          if (!json) return sendPage(reply, hostedFormPage(form, `/f/${form.uid}`, { values, problems: submission.problems }), { ...page, status: 400 });
          throw new ApiError(400, 'INVALID_REQUEST', describeProblems(submission.problems), { fields: Object.fromEntries(submission.problems) });
        }
        // D20: a filled honeypot gets the very answer a person gets, and nothing is stored.
        if (submission.kind === 'valid') await forms.signUp(published, submission.contact, clientOf(req), submission.consent);

        const message = successMessageOf(form, published.lists);
        if (json) return written({ redirect_url: form.redirect_url }, message);
        if (form.redirect_url) return reply.redirect(form.redirect_url, 303);
        const backTo = cameFrom(req, submission.kind === 'valid' ? submission.returnTo : returnToUrl(values.return_to), form.uid);
        return sendPage(reply, formAnswerPage(form.name, message, backTo), page);
      },
    }),
  };
}
