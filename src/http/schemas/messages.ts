import { Type } from '@sinclair/typebox';
import { MESSAGE_LIMITS, MESSAGE_STATUSES } from '../../domain/messages/message.ts';
import { NullableString, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.ts';

/** D25: transactional messages. */

export const MessageObject = Type.Object(
  {
    id: Type.Integer(),
    status: StringEnum(MESSAGE_STATUSES, { description: 'SCHEDULED → QUEUED (or CANCELED) → SENT or FAILED; SENT → BOUNCED; SUPPRESSED at once for a suppressed address' }),
    to: Type.String(),
    from_email: Type.String(),
    subject: Type.String(),
    tags: Type.Array(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    scheduled_at: NullableTimestamp,
    created_at: Timestamp,
    sent_at: NullableTimestamp,
    opened_at: NullableTimestamp,
    clicked_at: NullableTimestamp,
    error: NullableString({ description: 'why it was not sent, or bounced' }),
  },
  { $id: 'Message' },
);

const Attachment = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: MESSAGE_LIMITS.filenameMax, description: 'no path separator, no executable extension' }),
  content: Type.String({ description: 'the file, base64' }),
  content_type: Type.Optional(NullableString({ maxLength: 255 })),
});

export const SendMessageBody = Type.Object(
  {
    to: Type.String({ maxLength: 1000 }),
    from_email: Type.String({ maxLength: 1000 }),
    subject: Type.String({ minLength: 1, maxLength: MESSAGE_LIMITS.subjectMax, description: 'a Liquid template' }),
    html: Type.Optional(NullableString({ maxLength: MESSAGE_LIMITS.contentBytesMax, description: 'a Liquid template; or give template_id' })),
    text: Type.Optional(NullableString({ maxLength: MESSAGE_LIMITS.contentBytesMax })),
    template_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'a starter of the gallery or of the account (D22), compiled as campaigns are' })),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'merge data, `{{ data.x }}`' })),
    from_name: Type.Optional(NullableString({ maxLength: 255 })),
    reply_to: Type.Optional(NullableString({ maxLength: 1000 })),
    attachments: Type.Optional(Type.Array(Attachment, { maxItems: MESSAGE_LIMITS.attachmentsMax })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: MESSAGE_LIMITS.headersMax, description: 'X- headers only' })),
    tags: Type.Optional(Type.Array(Type.String({ pattern: MESSAGE_LIMITS.tagPattern }), { maxItems: MESSAGE_LIMITS.tagsMax })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: MESSAGE_LIMITS.metadataMax, description: `at most ${MESSAGE_LIMITS.metadataBytesMax} bytes as JSON` })),
    scheduled_at: Type.Optional(NullableString({ maxLength: 64, description: `at most ${MESSAGE_LIMITS.scheduleDaysMax} days ahead; absent or past means now` })),
    track_opens: Type.Optional(Type.Boolean({ default: false })),
    track_clicks: Type.Optional(Type.Boolean({ default: false })),
  },
);

export const SendBatchBody = Type.Object({
  messages: Type.Array(SendMessageBody, { minItems: 1, maxItems: MESSAGE_LIMITS.batchMax }),
});

export const MessageQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(MESSAGE_STATUSES)),
  to: Type.Optional(Type.String({ maxLength: 1000 })),
  tag: Type.Optional(Type.String({ pattern: MESSAGE_LIMITS.tagPattern })),
  since: Type.Optional(Type.String({ maxLength: 64, description: 'created at or after' })),
  until: Type.Optional(Type.String({ maxLength: 64, description: 'created before' })),
});
