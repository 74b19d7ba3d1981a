import { Type } from '@sinclair/typebox';
import { PASSWORD_LIMITS } from '../../domain/users/passwords.ts';
import { PLANS } from '../../domain/accounts/plans.ts';
import { documentedAs, StringEnum, Timestamp } from './common.ts';
import { ROLES } from '../../domain/users/roles.ts';

export const Credentials = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: PASSWORD_LIMITS.max }),
});

export const SignUpBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: PASSWORD_LIMITS.min, maxLength: PASSWORD_LIMITS.max, description: `${PASSWORD_LIMITS.min}-${PASSWORD_LIMITS.max} characters` }),
  account_name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { description: 'defaults to the e-mail address' })),
});

export const SessionInfo = Type.Object(
  {
    user: Type.Object({ id: Type.Integer(), account_id: Type.Integer(), email: Type.String(), role: StringEnum(ROLES, { description: 'D24.1' }), two_factor: Type.Boolean({ description: 'D24.6: whether sign-in asks this user for a code' }), created_at: Timestamp }),
    account: Type.Object({ id: Type.Integer(), name: Type.String(), plan: StringEnum(PLANS), slug: Type.String({ description: "D22: names the account's public archive, /archive/{slug}" }), time_zone: Type.String({ description: 'Issue 34: the IANA time zone the dashboard shows dates in (GET /api/v1/account)' }) }),
    csrf_token: Type.String({ description: 'send it back in X-CSRF-Token on every request that changes something' }),
    expires_at: Timestamp,
    permissions: Type.Array(Type.String(), { description: "D24.1: what the user's role may do, in the spec's permission names; the dashboard offers only these" }),
  },
  { $id: 'SessionInfo' },
);

/** Issue 14 L5: the answer to every sign-up but the first on an empty instance, the same whether or not the address has an account. */
export const SignUpPending = Type.Object(
  {
    email: Type.String({ description: 'the address the mail went to (normalised)' }),
    confirmation: Type.Literal('SENT', { description: 'a mail went to the address: its link creates the account and signs in' }),
  },
  { $id: 'SignUpPending' },
);

export const SignUpConfirmBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: "what follows `#` in the mailed link's /signup/confirm#<token>" }),
});

/** Issue 34 (16): the dashboard's first question, answered 200 signed in or not, so a signed-out load logs no 401. */
export const SessionProbe = Type.Object(
  {
    signed_in: Type.Boolean({ description: 'false without a session cookie, with an ended or expired one, and beside an API key (a key is no dashboard session)' }),
    session: Type.Union([SessionInfo, Type.Null()], { description: 'what GET /api/v1/auth/me answers, when signed in' }),
  },
  { $id: 'SessionProbe' },
);

/** D17.7: what the sign-in page needs to know before offering sign-up. */
export const SignUpStatus = Type.Object(
  {
    open: Type.Boolean({ description: 'true on an empty instance (the first sign-up is the operator\'s) or with ALLOW_SIGNUP=true' }),
    first_account: Type.Boolean({ description: 'true when the instance has no account yet: the next sign-up becomes the operator and is signed in at once' }),
    sso: Type.Boolean({ description: 'D24.7: true when single sign-on is configured (OIDC_ISSUER): the sign-in page offers "Sign in with SSO", which goes to GET /api/v1/auth/oidc/start' }),
  },
  { $id: 'SignUpStatus' },
);

/** D24.7: what the OpenID provider sends back to the callback; other parameters are passed on to the checks as they are. */
export const OidcCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ description: 'the authorization code' })),
  state: Type.Optional(Type.String({ description: 'must match the state this browser was sent off with' })),
  iss: Type.Optional(Type.String({ description: 'RFC 9207: the issuer that answered' })),
  error: Type.Optional(Type.String({ description: 'the provider refused (e.g. access_denied)' })),
  error_description: Type.Optional(Type.String()),
});

export const SsoRedirect = (description: string) =>
  documentedAs(Type.Any(), {
    description,
    type: 'null',
    headers: { Location: { type: 'string', format: 'uri' } },
  });
