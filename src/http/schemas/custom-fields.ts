import { Type } from '@sinclair/typebox';
import { CUSTOM_FIELD_DEFINITION_LIMITS, CUSTOM_FIELD_TYPES } from '../../domain/contacts/custom-field-definition.ts';
import { NullableString, StringEnum, Timestamp } from './common.ts';

const type = StringEnum(CUSTOM_FIELD_TYPES, {
  description: "what the contact may enter in the preference centre: text (at most 1000 characters), a number, or a yes/no (boolean); D11's values of other types stay as they are until the contact changes them",
});

/** Issue 34: what the account says about one custom field key. */
export const CustomFieldDefinitionObject = Type.Object(
  {
    key: Type.String({ description: "the custom field's key (D11)" }),
    type,
    label: NullableString({ description: 'what the contact reads beside it; null: the key in words' }),
    editable_by_contact: Type.Boolean({ description: 'the contact may change its value in the preference centre (D20)' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'CustomFieldDefinition' },
);

export const CustomFieldDefinitionList = Type.Object({ custom_fields: Type.Array(CustomFieldDefinitionObject, { description: 'by key' }) });

export const PutCustomFieldsBody = Type.Object({
  custom_fields: Type.Array(
    Type.Object({
      key: Type.String({ maxLength: 200, description: "a custom field's key: a letter, then up to 63 letters, digits or _ (D11)" }),
      type,
      label: Type.Optional(NullableString({ maxLength: 1000, description: `at most ${CUSTOM_FIELD_DEFINITION_LIMITS.labelMax} characters; blank or null: the key in words. Omitted: kept` })),
      editable_by_contact: Type.Optional(Type.Boolean({ description: 'omitted: kept (a new definition: false)' })),
    }),
    { minItems: 1, maxItems: CUSTOM_FIELD_DEFINITION_LIMITS.perRequestMax, description: `1-${CUSTOM_FIELD_DEFINITION_LIMITS.perRequestMax} definitions, each key at most once: each is made, or changed where the key has one; the account's others stay` },
  ),
});
