import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { pageDevInbox } from '../../domain/dev-inbox/dev-inbox.repo.ts';
import { readJson } from '../../domain/shared/json.ts';
import { toPage } from '../../domain/shared/paging.ts';
import { toApiTimestamp } from '../../domain/shared/time.ts';
import { defineRoute, read } from '../route.ts';
import { errorResponses, NullableString, PageOf, PageQuery, Read, Timestamp } from '../schemas/common.ts';

const Message = Type.Object({
  id: Type.Integer(),
  campaign_id: Type.Union([Type.Integer(), Type.Null()]),
  message_id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  subject: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
  html: NullableString(),
  text: NullableString(),
  created_at: Timestamp,
});

export function devInboxRoutes({ handle }: Pick<HttpParts, 'handle'>) {
  return {
    page: defineRoute({
      permissions: ['*'],
      schema: {
        summary: 'Mail captured while no SMTP_URL is configured, newest first',
        description:
          'Every message as it would have gone over SMTP: headers, HTML and text. The newest DEV_INBOX_MAX_MESSAGES (500) per account are kept; HTML, text and the raw source are kept up to 256 KB each, cut short beyond it with a note.',
        tags: ['Dev inbox'],
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('messages', Message)), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { rows, total } = await pageDevInbox(handle.db, req.auth.accountId, req.query);
        const messages = rows.map((r) => ({
          id: r.id,
          campaign_id: r.campaign_id === null ? null : Number(r.campaign_id),
          message_id: r.message_id,
          from: r.from_address,
          to: r.to_address,
          subject: r.subject,
          headers: readJson<Record<string, string>>(r.headers, {}),
          html: r.html,
          text: r.text,
          created_at: toApiTimestamp(r.created_at),
        }));
        return read(toPage('messages', messages, total, req.query));
      },
    }),
  };
}
