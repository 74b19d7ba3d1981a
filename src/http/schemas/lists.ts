import { Type } from '@sinclair/typebox';
import { CONFIRMATION_LIMITS, CONFIRM_URL_PLACEHOLDER, LIST_LIMITS, LIST_OPT_INS } from '../../domain/lists/list.ts';
import { Contact, MembershipStatus } from './contacts.ts';
import { NullableString, PageQuery, StringEnum, Timestamp } from './common.ts';

/** Issue 28 M2. */
const CUSTOM_CONFIRMATION =
  "the address the list's own confirmation subject and text are sent from, at one of the account's sending domains with a verified DKIM record; without it, or once that domain is no longer verified, the fixed confirmation mail (naming only the account and the lists) goes from the service's address. Setting any of the three needs campaigns.send";

const OptIn = StringEnum(LIST_OPT_INS, {
  description: 'D20: `double`: a subscription that asks for double opt-in (a form, or the API with `double_opt_in`) waits UNCONFIRMED until the person confirms by mail',
});

export const ContactList = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: NullableString(),
    is_active: Type.Boolean(),
    contact_count: Type.Integer({ description: 'D20: SUBSCRIBED memberships' }),
    opt_in: OptIn,
    is_public: Type.Boolean({ description: 'D20: shown in the preference centre and usable by forms' }),
    confirmation_subject: NullableString({ description: 'D20: the confirmation mail\'s subject; null: the default, naming the list' }),
    confirmation_text: NullableString({ description: `D20: the confirmation mail's plain text, holding ${CONFIRM_URL_PLACEHOLDER} where the link goes; null: the default` }),
    confirmation_from_email: NullableString({ description: CUSTOM_CONFIRMATION }),
    created_at: Timestamp,
    updated_at: Timestamp,
    used_by: Type.Optional(
      Type.Array(Type.String(), {
        description: 'D26.1, on GET /lists/{id} only: the forms and SCHEDULED or SENDING campaigns that hold the list, by name (form "Sign-up", campaign "May news"); while any does, deleting it or making it private is 409 LIST_IN_USE',
      }),
    ),
  },
  { $id: 'ContactList' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: LIST_LIMITS.nameMax, description: 'unique within the account (case-insensitive, trimmed)' }),
  description: Type.Optional(NullableString({ maxLength: LIST_LIMITS.descriptionMax })),
  is_active: Type.Optional(Type.Boolean({ default: true })),
  opt_in: Type.Optional(StringEnum(LIST_OPT_INS, { default: 'single', description: OptIn.description })),
  is_public: Type.Optional(Type.Boolean({ default: false })),
  confirmation_subject: Type.Optional(NullableString({ maxLength: CONFIRMATION_LIMITS.subjectMax, description: 'one line; blank or null: the default' })),
  confirmation_text: Type.Optional(
    NullableString({ maxLength: CONFIRMATION_LIMITS.textMax, description: `plain text (not Liquid) holding ${CONFIRM_URL_PLACEHOLDER}; blank or null: the default` }),
  ),
  confirmation_from_email: Type.Optional(NullableString({ maxLength: 254, description: CUSTOM_CONFIRMATION })),
};

export const CreateListBody = Type.Object(fields);
export const UpdateListBody = Type.Object({
  ...fields,
  name: Type.Optional(fields.name),
  is_active: Type.Optional(Type.Boolean()),
  opt_in: Type.Optional(StringEnum(LIST_OPT_INS, { description: OptIn.description })),
  is_public: Type.Optional(Type.Boolean()),
});

export const AddContactsBody = Type.Object({
  emails: Type.Array(Type.String(), { minItems: 1, maxItems: LIST_LIMITS.emailsPerAdd }),
  double_opt_in: Type.Optional(
    Type.Boolean({ description: 'D20: on a `double` list, the memberships wait UNCONFIRMED and each contact is mailed a confirmation link; without it the caller vouches: SUBSCRIBED' }),
  ),
});

export const AddContactsResult = Type.Object({
  added: Type.Integer({ description: 'memberships made or changed (made SUBSCRIBED, or UNCONFIRMED waiting for the person)' }),
  already_members: Type.Integer({ description: 'contacts whose membership stayed as it was: SUBSCRIBED already, or UNSUBSCRIBED by the person (only the person subscribes again)' }),
  not_found: Type.Array(Type.String(), { description: 'e-mails with no contact in the account' }),
});

/** D20: a list's member page: each contact with its membership's status. */
export const ListMember = Type.Object({ ...Contact.properties, membership_status: MembershipStatus }, { $id: 'ListMember' });

export const ListMembersQuery = Type.Object({
  ...PageQuery,
  membership_status: Type.Optional(MembershipStatus),
});
