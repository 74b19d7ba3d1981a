import { Type } from '@sinclair/typebox';
import { FORM_LIMITS } from '../../domain/forms/form.ts';
import { documentedAs, ErrorBody, NullableString, Timestamp } from './common.ts';

const fieldName = Type.String({
  maxLength: 200,
  description: 'email, first_name, last_name or custom_fields.<key> (a letter, then up to 63 letters, digits or _); each at most once, email always',
  examples: ['email', 'first_name', 'custom_fields.company'],
});

const FormFieldObject = Type.Object({
  name: fieldName,
  label: Type.String({ description: 'what the person reads beside the input' }),
  required: Type.Boolean(),
});

const FormFieldInput = Type.Object({
  name: fieldName,
  label: Type.String({ maxLength: 1000, description: `1-${FORM_LIMITS.labelMax} characters after trimming` }),
  required: Type.Optional(Type.Boolean({ description: 'default false; email is always required' })),
});

export const FormObject = Type.Object(
  {
    id: Type.Integer(),
    uid: Type.String({ description: 'what the public /f/{uid} names: 128 random bits, base64url' }),
    name: Type.String(),
    list_ids: Type.Array(Type.Integer(), { description: 'the public lists a sign-up joins' }),
    fields: Type.Array(FormFieldObject, { description: 'in the order they are shown' }),
    success_message: NullableString({ description: 'shown after a sign-up; null: a default that says whether a confirmation mail was sent' }),
    redirect_url: NullableString({ description: 'where a browser is sent (303) after a sign-up instead of the message' }),
    button_text: NullableString({ description: 'the submit button\'s words; null: "Subscribe"' }),
    button_color: NullableString({ description: 'the submit button\'s colour, #rgb or #rrggbb (lower-case); its words are black or white, whichever reads better; null: the hosted page\'s blue, and the embedding page\'s own style in the embed code' }),
    consent_text: NullableString({ description: 'the words of a consent checkbox (`consent`) the person must tick to sign up, stored as shown in the consent record (its statement); null: no checkbox' }),
    confirm_redirect_url: NullableString({ description: 'where a person is sent (303) once they confirm a double opt-in by mail, instead of the confirmation page' }),
    hosted_url: Type.String({ description: 'the hosted form page, PUBLIC_URL/f/{uid}' }),
    embed_html: Type.String({ description: 'a plain <form> that posts to the hosted URL, with labels and the hidden honeypot field `website`; no script needed' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Form' },
);

const name = Type.String({ maxLength: 1000, description: `1-${FORM_LIMITS.nameMax} characters after trimming` });
const listIds = Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
  maxItems: 100,
  description: `1-${FORM_LIMITS.listsMax} public lists of the account (D20); another account's, a missing or a private list is 400`,
});
const fields = Type.Array(FormFieldInput, { maxItems: 100, description: `1-${FORM_LIMITS.fieldsMax} fields, shown in this order` });
const successMessage = NullableString({ maxLength: 10_000, description: `at most ${FORM_LIMITS.successMessageMax} characters; blank or null: the default` });
const redirectUrl = NullableString({ maxLength: 10_000, description: `an http(s) URL of at most ${FORM_LIMITS.redirectUrlMax} characters; blank or null: none` });
const options = {
  button_text: Type.Optional(NullableString({ maxLength: 1000, description: `at most ${FORM_LIMITS.buttonTextMax} characters after trimming; blank or null: "Subscribe"` })),
  button_color: Type.Optional(NullableString({ maxLength: 100, description: 'a hex colour, # and 3 or 6 hex digits (#0b7285); blank or null: the default' })),
  consent_text: Type.Optional(NullableString({ maxLength: 10_000, description: `plain text of at most ${FORM_LIMITS.consentTextMax} characters: a checkbox the person must tick; blank or null: no checkbox` })),
  confirm_redirect_url: Type.Optional(NullableString({ maxLength: 10_000, description: `an http(s) URL of at most ${FORM_LIMITS.redirectUrlMax} characters, where a person goes after confirming a double opt-in; blank or null: the confirmation page` })),
};

export const CreateFormBody = Type.Object({
  name,
  list_ids: listIds,
  fields,
  success_message: Type.Optional(successMessage),
  redirect_url: Type.Optional(redirectUrl),
  ...options,
});

export const UpdateFormBody = Type.Object({
  name: Type.Optional(name),
  list_ids: Type.Optional(listIds),
  fields: Type.Optional(fields),
  success_message: Type.Optional(successMessage),
  redirect_url: Type.Optional(redirectUrl),
  ...options,
});

/** Issue 34: the page that links to the hosted form may say where the visitor is, for the thank-you page's link back. */
export const HostedFormQuery = Type.Object({
  return_to: Type.Optional(Type.String({ maxLength: 4000, description: 'an http(s) URL of the page the visitor came from: the thank-you page links back to it (never a redirect); without it, the Referer' })),
});

export const FormUidParams = Type.Object({ uid: Type.String({ maxLength: 100, description: "the form's uid" }) });

/** D20: a sign-up, form-encoded or JSON, named by the form's own field names; validated by the service so each refusal names its fields. */
export const SubmissionBody = documentedAs(Type.Any(), {
  description:
    'The form\'s fields by name (`email`, `first_name`, `custom_fields.company`, ...), as application/x-www-form-urlencoded or a flat JSON object. ' +
    'A field the form does not declare is 400. `website` is the honeypot: leave it out or empty. ' +
    '`consent` (`on`, `yes`, `true` or `1`) ticks the consent checkbox, required when the form has `consent_text`. ' +
    '`return_to` (optional), an http(s) URL of the page the visitor came from: the thank-you page links back to it (it never redirects there); without it, the Referer.',
  content: {
    'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } },
    'application/json': { schema: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } } },
  },
});

const html = (description: string) => ({ 'text/html': { schema: { type: 'string', contentMediaType: 'text/html', description } } });

export const SubmissionAccepted = documentedAs(Type.Any(), {
  description: 'Signed up (or the honeypot was filled: the same answer, nothing stored). HTML: a page with the success message. JSON (Accept: application/json, or a JSON body with no HTML in Accept): the envelope below.',
  content: {
    ...html('the success page'),
    'application/json': {
      schema: {
        type: 'object',
        required: ['success', 'data', 'message'],
        properties: {
          success: { const: true },
          data: { type: 'object', required: ['redirect_url'], properties: { redirect_url: { type: ['string', 'null'], description: "the form's redirect_url, for the caller to follow" } } },
          message: { type: 'string', description: "the form's success message" },
        },
      },
    },
  },
});

export const SubmissionRedirect = documentedAs(Type.Any(), {
  description: "Signed up, from a browser (not JSON) to a form with a redirect_url: 303 there",
  type: 'null',
  headers: { Location: { type: 'string', format: 'uri', description: "the form's redirect_url" } },
});

const refusal = (description: string, page: string) =>
  documentedAs(Type.Any(), { description, content: { ...html(page), 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });

export const FormPage = documentedAs(Type.Any(), { description: 'The hosted form page', content: html('the form') });

export const formPublicErrors = {
  404: refusal('No form has this uid, it was deleted, or none of its lists is public any more (FORM_NOT_FOUND)', 'a page saying the form does not exist'),
  429: refusal('Over 10 submissions a minute from this client address to this form (RATE_LIMIT_EXCEEDED), with Retry-After', 'a page saying when to try again'),
};

export const submissionErrors = {
  400: refusal(
    'Fields are missing, too long, not valid, or not fields of this form (INVALID_REQUEST, naming each; JSON adds `fields`: name -> problem)',
    'the hosted form again, with the values given and each problem beside its field',
  ),
  ...formPublicErrors,
  413: Type.Ref(ErrorBody, { description: 'The body is over the size limit (PAYLOAD_TOO_LARGE)' }),
  415: Type.Ref(ErrorBody, { description: 'The body is neither form-encoded nor JSON (UNSUPPORTED_MEDIA_TYPE)' }),
};
