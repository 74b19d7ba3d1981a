import { actingOf } from '../acting.ts';
import type { HttpParts } from '../http-parts.ts';
import { defineRoute, pathId } from '../route.ts';
import { errorResponses, IdParams } from '../schemas/common.ts';
import { BulkImportBody, BulkImportResult, EventAccepted, EventBody, FlatStatistics } from '../schemas/integrations.ts';

const tags = ['Integrations'];

/** D14: the bulk route takes up to 10 MiB (1000 contacts with custom fields); the rest 1 MiB. */
export const BULK_BODY_LIMIT = 10 * 1024 * 1024;

/** D14: the integration endpoints. Flat bodies: `{ success: true, ...fields }`; errors in D7's flat form. */
export function integrationRoutes({ bulkImport, events, campaignReports }: Pick<HttpParts, 'bulkImport' | 'events' | 'campaignReports'>) {
  return {
    bulk: defineRoute({
      permissions: ['contacts.write'],
      bodyLimit: BULK_BODY_LIMIT,
      nulCheckedByHandler: true,
      schema: {
        summary: 'Import up to 1000 contacts',
        description: 'Invalid items are reported in errors (by 0-based index) and never fail the batch; valid items are written in one transaction.',
        tags,
        body: BulkImportBody,
        response: { 200: BulkImportResult, ...errorResponses(true, { 404: 'listId names no list (LIST_NOT_FOUND); nothing is written', 413: 'body over 10 MiB (PAYLOAD_TOO_LARGE)' }) },
      },
      handler: async (req) => ({ success: true as const, ...(await bulkImport.import(actingOf(req), req.auth.accountId, req.body)) }),
    }),

    event: defineRoute({
      permissions: ['contacts.write', 'automation.write'],
      status: 202,
      schema: {
        summary: 'Record a custom event for a contact',
        description: 'An unknown e-mail creates the contact. The event is stored and EVENT automations listening for its name start.',
        tags,
        body: EventBody,
        response: { 202: EventAccepted, ...errorResponses(true) },
      },
      handler: async (req) => ({ success: true as const, ...(await events.record(actingOf(req), req.auth.accountId, req.body)) }),
    }),

    stats: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: "A sent campaign's statistics",
        tags,
        params: IdParams,
        response: { 200: FlatStatistics, ...errorResponses(true, { 404: 'CAMPAIGN_NOT_FOUND', 409: 'CAMPAIGN_NOT_SENT' }) },
      },
      handler: async (req) => {
        const s = await campaignReports.statistics(req.auth.accountId, pathId(req.params.id));
        return {
          success: true as const,
          sent: s.sent,
          delivered: s.delivered,
          opened: s.opened,
          clicked: s.clicked,
          bounced: s.bounced,
          complained: s.complained,
          unsubscribed: s.unsubscribed,
          openRate: s.open_rate,
          clickRate: s.click_rate,
          bounceRate: s.bounce_rate,
          clickToOpenRate: s.click_to_open_rate,
          unsubscribeRate: s.unsubscribe_rate,
        };
      },
    }),
  };
}
