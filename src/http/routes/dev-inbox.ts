import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { readJson } from '../../domain/shared/json.ts';
import { offsetOf, toPage } from '../../domain/shared/paging.ts';
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

export function devInboxRoutes({ handle }: Deps) {
  return {
    page: defineRoute({
      permissions: ['*'],
      schema: {
        summary: 'Mail captured while no SMTP_URL is configured, newest first',
        description: 'Every message as it would have gone over SMTP: headers, HTML and text.',
        tags: ['Dev inbox'],
        querystring: Type.Object(PageQuery),
        response: { 200: Read(PageOf('messages', Message)), ...errorResponses(false) },
      },
      handler: async (req) => {
        const base = handle.db.selectFrom('dev_inbox').where('account_id', '=', req.auth.accountId);
        const [rows, total] = await Promise.all([
          base.selectAll().orderBy('id', 'desc').limit(req.query.size).offset(offsetOf(req.query)).execute(),
          base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        ]);
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
        return read(toPage('messages', messages, Number(total.n), req.query));
      },
    }),
  };
}
