import { actingOf } from '../acting.ts';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { bodyErrorResponses, errorResponses, IdParams, PageOf, Read, Written } from '../schemas/common.ts';
import { MessageObject, MessageQuery, SendBatchBody, SendMessageBody } from '../schemas/messages.ts';
import { Type } from '@sinclair/typebox';
import { MESSAGE_LIMITS } from '../../domain/messages/message.ts';
import { parseInputTimestamp } from '../../domain/shared/time.ts';
import { normaliseEmail } from '../../domain/shared/email-address.ts';

const tags = ['Messages'];

/** D25: transactional mail, one message to one address, outside any campaign. */
export function messageRoutes({ messages }: Pick<HttpParts, 'messages'>) {
  return {
    send: defineRoute({
      permissions: ['campaigns.send'],
      // D25.1: 10 MiB of attachments, base64, with the rest of the message.
      bodyLimit: MESSAGE_LIMITS.bodyBytesMax,
      schema: {
        summary: 'Send one transactional message',
        description:
          'To any address, subscriber or not (an UNSUBSCRIBED contact too); never to a suppressed one, which makes a SUPPRESSED message and no mail. ' +
          'No List-Unsubscribe header and no unsubscribe footer. Content is a starter (`template_id`) or `html` and/or `text`, Liquid with `{{ data.x }}` and, when `to` is a contact, its fields.',
        tags,
        body: SendMessageBody,
        response: { 200: Written(MessageObject), ...errorResponses(false, { 404: 'TEMPLATE_NOT_FOUND' }), ...bodyErrorResponses(false, true) },
      },
      handler: async (req) => {
        const message = await messages.send(req.auth.accountId, req.body);
        return written(message, message.status === 'SUPPRESSED' ? 'Message not sent: the address is suppressed' : message.status === 'SCHEDULED' ? 'Message scheduled' : 'Message queued');
      },
    }),

    batch: defineRoute({
      permissions: ['campaigns.send'],
      bodyLimit: MESSAGE_LIMITS.bodyBytesMax,
      schema: {
        summary: 'Send 1-100 transactional messages, all or nothing',
        description: 'Every message is checked first; any invalid one makes the whole batch 400, naming `messages[i].field`, and nothing is queued.',
        tags,
        body: SendBatchBody,
        response: { 200: Written(Type.Array(MessageObject)), ...errorResponses(false), ...bodyErrorResponses(false, true) },
      },
      handler: async (req) => {
        const sent = await messages.sendBatch(req.auth.accountId, req.body.messages);
        return written(sent, `${sent.length} messages accepted`);
      },
    }),

    page: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'Page through transactional messages, newest first',
        tags,
        querystring: MessageQuery,
        response: { 200: Read(PageOf('messages', MessageObject)), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { page, size, status, to, tag, since, until } = req.query;
        const filter = {
          status,
          tag,
          to: to === undefined ? undefined : normaliseEmail(to, 'to'),
          since: since === undefined ? undefined : parseInputTimestamp('since', since),
          until: until === undefined ? undefined : parseInputTimestamp('until', until),
        };
        return read(await messages.page(req.auth.accountId, filter, { page, size }));
      },
    }),

    get: defineRoute({
      permissions: ['campaigns.read'],
      schema: { summary: 'Get one transactional message', tags, params: IdParams, response: { 200: Read(MessageObject), ...errorResponses(false, { 404: 'MESSAGE_NOT_FOUND' }) } },
      handler: async (req) => read(await messages.get(req.auth.accountId, pathId(req.params.id))),
    }),

    cancel: defineRoute({
      permissions: ['campaigns.send'],
      schema: {
        summary: 'Cancel a scheduled message',
        description: 'A SCHEDULED message becomes CANCELED; any other status is 409 INVALID_STATE.',
        tags,
        params: IdParams,
        response: { 200: Written(MessageObject), ...errorResponses(false, { 404: 'MESSAGE_NOT_FOUND', 409: 'INVALID_STATE' }) },
      },
      handler: async (req) => written(await messages.cancel(actingOf(req), req.auth.accountId, pathId(req.params.id)), 'Message canceled'),
    }),
  };
}
