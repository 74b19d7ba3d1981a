import { Type } from '@sinclair/typebox';
import { LIST_LIMITS } from '../../domain/lists/lists.service.ts';
import { NullableString, Timestamp } from './common.ts';

export const ContactList = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: NullableString(),
    is_active: Type.Boolean(),
    contact_count: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'ContactList' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: LIST_LIMITS.nameMax, description: 'unique within the account (case-insensitive, trimmed)' }),
  description: Type.Optional(NullableString({ maxLength: LIST_LIMITS.descriptionMax })),
  is_active: Type.Optional(Type.Boolean({ default: true })),
};

export const CreateListBody = Type.Object(fields);
export const UpdateListBody = Type.Object({ ...fields, name: Type.Optional(fields.name), is_active: Type.Optional(Type.Boolean()) });

export const AddContactsBody = Type.Object({
  emails: Type.Array(Type.String(), { minItems: 1, maxItems: LIST_LIMITS.emailsPerAdd }),
});

export const AddContactsResult = Type.Object({
  added: Type.Integer({ description: 'contacts newly added' }),
  already_members: Type.Integer(),
  not_found: Type.Array(Type.String(), { description: 'e-mails with no contact in the account' }),
});
