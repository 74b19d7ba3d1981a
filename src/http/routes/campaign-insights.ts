import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId, read } from '../route.ts';
import { errorResponses, IdParams, Read, StringEnum, Timestamp } from '../schemas/common.ts';
import { FOLLOW_UP_AUDIENCES } from '../../domain/campaigns/follow-up.ts';
import { CampaignStatus } from '../schemas/campaigns.ts';

const tags = ['Campaigns'];
const notFound = { 404: 'CAMPAIGN_NOT_FOUND' };

/** Dashboard additions (issue 6): read-only views the campaign pages need. */
export function campaignInsightRoutes({ campaignInsights }: Pick<HttpParts, 'campaignInsights'>) {
  return {
    audienceEstimate: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'How many contacts an audience would reach now (dashboard addition)',
        description: "D13's rule with D18's segments: SUBSCRIBED contacts in any of `list_ids` or `segment_ids`, with any of `tags` when given. Repeat a parameter for several values. A `segment_ids` entry that names no segment of the account is 404 SEGMENT_NOT_FOUND, as campaign create answers it (D26.10); list ids that are not the account's count no one.",
        tags,
        querystring: Type.Object({
          list_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { maxItems: 100 })),
          tags: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
          segment_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { maxItems: 100 })),
          follow_up_of: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'a SENT campaign whose recipients a follow-up takes (with follow_up_audience)' })),
          follow_up_audience: Type.Optional(StringEnum(FOLLOW_UP_AUDIENCES)),
        }),
        response: { 200: Read(Type.Object({ recipients: Type.Integer() })), ...errorResponses(false, { 404: 'a segment_ids entry names no segment of the account (SEGMENT_NOT_FOUND)' }) },
      },
      handler: async (req) => read({ recipients: await campaignInsights.audienceSize(
            req.auth.accountId,
            req.query.list_ids ?? [],
            req.query.tags ?? [],
            req.query.segment_ids ?? [],
            req.query.follow_up_of !== undefined ? { campaign_id: req.query.follow_up_of, audience: req.query.follow_up_audience ?? 'NOT_OPENED' } : undefined,
          ) }),
    }),

    progress: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'How far sending has come, in any status (dashboard addition)',
        tags,
        params: IdParams,
        response: {
          200: Read(
            Type.Object({
              status: CampaignStatus,
              total_recipients: Type.Integer(),
              sent: Type.Integer({ description: 'handed to the mail server, bounces included' }),
              bounced: Type.Integer(),
              failed: Type.Integer({ description: 'given up after retries' }),
              cancelled: Type.Integer({ description: 'issue 34: never sent, the campaign was cancelled' }),
              remaining: Type.Integer({ description: 'not sent yet: waiting, being sent, or (PAUSED) waiting for /resume' }),
            }),
          ),
          ...errorResponses(false, notFound),
        },
      },
      handler: async (req) => read(await campaignInsights.progress(req.auth.accountId, pathId(req.params.id))),
    }),

    engagement: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'Unique opens and clicks per hour, UTC (dashboard addition)',
        description: 'Each recipient counts once, in the hour of its first open (or click). Hours with neither are left out.',
        tags,
        params: IdParams,
        response: {
          200: Read(Type.Object({ hours: Type.Array(Type.Object({ hour: Timestamp, opens: Type.Integer(), clicks: Type.Integer() })) })),
          ...errorResponses(false, notFound),
        },
      },
      handler: async (req) => read({ hours: await campaignInsights.engagementOverTime(req.auth.accountId, pathId(req.params.id)) }),
    }),
  };
}
