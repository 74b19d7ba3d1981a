import { Type } from '@sinclair/typebox';
import { SUPPRESSION_LIMITS, SUPPRESSION_SOURCES } from '../../domain/suppressions/suppression.ts';
import { NullableString, PageQuery, StringEnum, Timestamp } from './common.ts';

export const SuppressionObject = Type.Object(
  {
    id: Type.Integer(),
    value: Type.String({ description: 'a lower-cased address, or @ and a domain' }),
    reason: NullableString(),
    source: StringEnum(SUPPRESSION_SOURCES, { description: 'MANUAL (API, dashboard, import), BOUNCE (a hard bounce), COMPLAINT (a spam report), UNSUBSCRIBE or ERASURE' }),
    created_at: Timestamp,
  },
  { $id: 'Suppression' },
);

export const AddSuppressionBody = Type.Object({
  value: Type.String({ maxLength: 1000, description: 'an e-mail address, or @ followed by a domain (@example.com) to suppress every address there' }),
  reason: Type.Optional(NullableString({ maxLength: SUPPRESSION_LIMITS.reasonMax })),
});

export const SuppressionQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(Type.String({ maxLength: 254, description: 'matches anywhere in the value' })),
});
