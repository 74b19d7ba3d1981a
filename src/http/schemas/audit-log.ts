import { Type } from '@sinclair/typebox';
import { ACTOR_TYPES } from '../../domain/audit/audit-entry.ts';
import { NullableString, PageQuery, StringEnum, Timestamp } from './common.ts';

/** D24.8: one audit log entry, as GET /api/v1/audit-log shows it. */
export const AuditEntryObject = Type.Object(
  {
    id: Type.Integer(),
    at: Timestamp,
    actor: Type.Object({
      type: StringEnum(ACTOR_TYPES, { description: 'user (a dashboard session), api_key, or system (the CLI, the scheduler and other background work)' }),
      id: NullableString({ description: "the user's or the key's id; null for the system" }),
      label: NullableString({ description: "the user's e-mail address or the key's name (as it was then); `system` for the system" }),
    }),
    action: Type.String({ description: 'what was done, e.g. api_key.created, contact.erased, campaign.sent' }),
    target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()], { description: 'what it was done to, by type and id only (never an address or a secret); null when nothing has an id (an import)' }),
    ip: NullableString({ description: "the request's client address; null for the system" }),
    user_agent: NullableString({ description: "the request's User-Agent (its first 512 characters)" }),
  },
  { $id: 'AuditEntry' },
);

export const AuditLogQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(Type.String({ maxLength: 100, description: 'exactly this action' })),
  actor_type: Type.Optional(StringEnum(ACTOR_TYPES)),
  actor_id: Type.Optional(Type.String({ maxLength: 100, description: "the user's or key's id" })),
  target_type: Type.Optional(Type.String({ maxLength: 100 })),
  target_id: Type.Optional(Type.String({ maxLength: 100 })),
  since: Type.Optional(Type.String({ maxLength: 64, description: 'at or after (D1 timestamp)' })),
  until: Type.Optional(Type.String({ maxLength: 64, description: 'before (D1 timestamp)' })),
});
