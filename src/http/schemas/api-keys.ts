import { Type } from '@sinclair/typebox';
import { PERMISSIONS } from '../../domain/api-keys/permissions.ts';
import { NullableString, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.ts';

/** The spec's permission table (D17.8: an enum in the document; an unknown name is 400 naming the item). */
export const Permission = StringEnum(PERMISSIONS, { description: '`*` grants every permission' });

export const ApiKey = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: NullableString(),
    masked_key: Type.String({ description: 'first 7 and last 4 characters joined by ...' }),
    permissions: Type.Array(Permission),
    status: Type.Union([Type.Literal('Active'), Type.Literal('Revoked'), Type.Literal('Expired')]),
    permanently_revoked: Type.Boolean(),
    request_count: Type.Integer(),
    last_used_at: NullableTimestamp,
    created_at: Timestamp,
    expires_at: NullableTimestamp,
  },
  { $id: 'ApiKey' },
);

export const ApiKeyWithValue = Type.Composite([ApiKey, Type.Object({ key: Type.String({ description: 'the full key value, shown only in this response' }) })]);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'where the key is used' }),
  description: Type.Optional(NullableString({ maxLength: 1000 })),
  permissions: Type.Array(Permission, { minItems: 1, maxItems: PERMISSIONS.length }),
  expires_at: Type.Optional(NullableString({ description: 'a future date-time; keys do not expire unless one is set' })),
};

export const CreateKeyBody = Type.Object(fields);
export const UpdateKeyBody = Type.Object({ ...fields, name: Type.Optional(fields.name), permissions: Type.Optional(fields.permissions) });

export const KeyQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(Type.String({ description: 'case-insensitive match on the name or a fragment of the masked key' })),
  status: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('Active'), Type.Literal('Revoked'), Type.Literal('Expired')], { default: 'all' })),
});

export const KeySummary = Type.Object({
  total: Type.Integer(),
  active: Type.Integer(),
  inactive: Type.Integer({ description: 'total - active' }),
  total_requests: Type.Integer(),
  top_endpoints: Type.Array(Type.Object({ method: Type.String(), route: Type.String(), count: Type.Integer() }), { description: 'at most 10, most called first' }),
});
