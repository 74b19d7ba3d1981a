import type { ActingContext } from '../../domain/shared/actor.ts';
import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { addWarnings, defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, Read, Written } from '../schemas/common.ts';
import { Campaign, CampaignChecks, CampaignPreview, FollowUpBody, LedgerEntry, LinkReport, VariantReport, RecipientQuery, CampaignQuery, CampaignStatistics, CreateCampaignBody, PreviewBody, ScheduleBody, TestSendBody, TestSendResult, UpdateCampaignBody } from '../schemas/campaigns.ts';

const tags = ['Campaigns'];
const notFound = { 404: 'CAMPAIGN_NOT_FOUND' };

export function campaignRoutes({ campaigns, campaignLifecycle, campaignReports, testSender }: Pick<HttpParts, 'campaigns' | 'campaignLifecycle' | 'campaignReports' | 'testSender'>) {
  const action = (summary: string, description: string, run: (acting: ActingContext, accountId: number, id: number) => ReturnType<typeof campaigns.get>, message: string) =>
    defineRoute({
      permissions: ['campaigns.send'],
      schema: {
        summary,
        description,
        tags,
        params: IdParams,
        response: { 200: Written(Campaign), ...errorResponses(false, { ...notFound, 409: 'INVALID_STATE' }) },
      },
      handler: async (req) => written(await run(actingOf(req), req.auth.accountId, pathId(req.params.id)), message),
    });

  return {
    send: action(
      'Start sending (DRAFT or SCHEDULED), or resume a FAILED campaign',
      'The audience is snapshotted when sending starts: SUBSCRIBED contacts of its lists, filtered by its tags. A resumed campaign sends only to recipients not yet sent. 400 when it has no subject, sender, content or recipients.',
      (acting, a, id) => campaignLifecycle.send(acting, a, id),
      'Campaign sending',
    ),
    unschedule: action('Cancel a schedule (SCHEDULED -> DRAFT)', 'The campaign returns to DRAFT and can be edited.', (acting, a, id) => campaignLifecycle.unschedule(acting, a, id), 'Campaign unscheduled'),
    // Issue 34: a send under way can be stopped for a while, or for good.
    pause: action(
      'Pause a SENDING campaign (SENDING -> PAUSED)',
      'No more of its recipients are claimed from now on; messages already handed to the mail server are recorded as usual. /resume goes on with the recipients not yet sent, each mailed once. Any other status: 409 INVALID_STATE.',
      (acting, a, id) => campaignLifecycle.pause(acting, a, id),
      'Campaign paused',
    ),
    resume: action('Resume a PAUSED campaign (PAUSED -> SENDING)', 'Sending goes on where it stopped: only recipients not yet sent, each once. Any other status: 409 INVALID_STATE.', (acting, a, id) => campaignLifecycle.resume(acting, a, id), 'Campaign resumed'),
    cancel: action(
      'Cancel a SENDING or PAUSED campaign (-> CANCELLED, final)',
      'Every recipient not yet sent is CANCELLED (in the recipient ledger) and never mailed; messages already handed to the mail server keep their outcome. A SCHEDULED campaign is unscheduled instead. Any other status: 409 INVALID_STATE.',
      (acting, a, id) => campaignLifecycle.cancel(acting, a, id),
      'Campaign cancelled',
    ),

    preview: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'The campaign rendered for one contact, nothing sent (D22)',
        description:
          "`subject`, `preheader`, `html`, `text`, `format` and `template_id`, when given, are previewed instead of the saved content (checked and compiled as on save: a Liquid or MJML error is 400 naming the field and line). Merge fields come from the contact with `email` (404 CONTACT_NOT_FOUND when the address is no contact), else the first SUBSCRIBED member of the campaign's lists, else sample data (`merge_data` says which). Nothing is sent, stored or tracked: no open pixel, links as the content wrote them (no tracking token), and the unsubscribe, preference and web view links are inert `#` anchors. A template that cannot be rendered (a render limit too) is 400 with the reason.",
        tags,
        params: IdParams,
        body: PreviewBody,
        response: { 200: Read(CampaignPreview), ...errorResponses(false, { 404: 'CAMPAIGN_NOT_FOUND or CONTACT_NOT_FOUND' }) },
      },
      handler: async (req) => {
        const { email, variant, ...draft } = req.body;
        return read(await testSender.preview(req.auth.accountId, pathId(req.params.id), email, draft, variant));
      },
    }),

    duplicate: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Copy a campaign into a new DRAFT (D17.4)',
        description: 'Any status: the copy has the same content (subject, preheader, html, text, sender fields) and audience (lists still existing, tags), is named "Copy of <name>" and has no scheduled_at.',
        tags,
        params: IdParams,
        response: { 200: Written(Campaign), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await campaigns.duplicate(actingOf(req), req.auth.accountId, pathId(req.params.id)), 'Campaign duplicated'),
    }),

    followUp: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: "Start a follow-up DRAFT to a part of a SENT campaign's recipients (D18)",
        description:
          'The copy has the same content, is named "<name> (follow-up)" and its audience is the chosen part of the original\'s recipients whose mail was delivered (not bounced): ' +
          'NOT_OPENED, NOT_CLICKED, OPENED or CLICKED, decided when it is sent, minus anyone no longer SUBSCRIBED. Lists and segments may be added to it.',
        tags,
        params: IdParams,
        body: FollowUpBody,
        response: { 200: Written(Campaign), ...errorResponses(false, { ...notFound, 409: 'the campaign is not SENT (INVALID_STATE)' }) },
      },
      handler: async (req) => written(await campaigns.followUp(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body.audience), 'Follow-up campaign created'),
    }),

    schedule: defineRoute({
      permissions: ['campaigns.send'],
      schema: {
        summary: 'Schedule a DRAFT campaign for a future time',
        tags,
        params: IdParams,
        body: ScheduleBody,
        response: { 200: Written(Campaign), ...errorResponses(false, { ...notFound, 409: 'INVALID_STATE' }) },
      },
      handler: async (req) => written(await campaignLifecycle.schedule(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body.scheduled_at), 'Campaign scheduled'),
    }),

    test: defineRoute({
      permissions: ['campaigns.send'],
      schema: {
        summary: 'Send the campaign to 1-10 addresses as a test, without changing its status',
        tags,
        params: IdParams,
        body: TestSendBody,
        response: { 200: Written(TestSendResult), ...errorResponses(false, notFound) },
      },
      handler: async (req) => written(await testSender.send(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body.emails), 'Test messages sent'),
    }),

    create: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Create a campaign (DRAFT); only name is required',
        description:
          'D22: `html` is written in `format` (html, mjml or markdown) and placed in the layout `template_id` names; on every save it is compiled (MJML errors are 400 naming the line, as is compiled HTML over the render size limit or over 5 s to compile) and its CSS inlined. It is compiled again, with the layout as it is then, when sending starts: what is sent is that snapshot.',
        tags,
        body: CreateCampaignBody,
        response: { 200: Written(Campaign), ...errorResponses(false, { 404: 'a list_ids entry names no list (LIST_NOT_FOUND), a segment_ids entry no segment (SEGMENT_NOT_FOUND), or template_id no layout of the account or built-in (TEMPLATE_NOT_FOUND)' }) },
      },
      handler: async (req) => {
        const { campaign, warnings } = await campaigns.create(actingOf(req), req.auth.accountId, req.body);
        // D26.7: merge fields nothing fills, named.
        addWarnings(req, warnings);
        return written(campaign, 'Campaign created');
      },
    }),

    page: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'Page through campaigns, newest first',
        tags,
        querystring: CampaignQuery,
        response: { 200: Read(PageOf('campaigns', Campaign)), ...errorResponses(false) },
      },
      handler: async (req) => {
        const { status, page, size } = req.query;
        return read(await campaigns.page(req.auth.accountId, status, { page, size }));
      },
    }),

    get: defineRoute({
      permissions: ['campaigns.read'],
      schema: { summary: 'Read a campaign', tags, params: IdParams, response: { 200: Read(Campaign), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await campaigns.get(req.auth.accountId, pathId(req.params.id))),
    }),

    update: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Edit a campaign (DRAFT, SCHEDULED or FAILED; its send_window in any status)',
        tags,
        params: IdParams,
        body: UpdateCampaignBody,
        response: { 200: Written(Campaign), ...errorResponses(false, { 404: 'CAMPAIGN_NOT_FOUND, LIST_NOT_FOUND, SEGMENT_NOT_FOUND or TEMPLATE_NOT_FOUND', 409: 'INVALID_STATE' }) },
      },
      handler: async (req) => {
        const { campaign, warnings } = await campaigns.update(actingOf(req), req.auth.accountId, pathId(req.params.id), req.body);
        addWarnings(req, warnings);
        return written(campaign, 'Campaign updated');
      },
    }),

    delete: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Delete a campaign (not while SENDING or PAUSED)',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, { ...notFound, 409: 'INVALID_STATE' }) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await campaigns.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Campaign deleted');
      },
    }),

    statistics: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'Delivery and engagement statistics of a SENT campaign',
        tags,
        params: IdParams,
        response: { 200: Read(CampaignStatistics), ...errorResponses(false, { ...notFound, 409: 'CAMPAIGN_NOT_SENT' }) },
      },
      handler: async (req) => read(await campaignReports.statistics(req.auth.accountId, pathId(req.params.id))),
    }),

    recipients: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: "The campaign's recipient ledger: each recipient's outcome, attempts, the mail server's last reply and engagement (D19)",
        description: 'By recipient id. A recipient is FAILED when its message could not be rendered, its address was refused before sending, it was suppressed, or its retries ran out.',
        tags,
        params: IdParams,
        querystring: RecipientQuery,
        response: { 200: Read(PageOf('recipients', LedgerEntry)), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const { page, size, ...filter } = req.query;
        return read(await campaignReports.recipients(req.auth.accountId, pathId(req.params.id), filter, { page, size }));
      },
    }),

    links: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: "Clicks per link of the campaign, in the messages' order (D19)",
        tags,
        params: IdParams,
        response: { 200: Read(LinkReport), ...errorResponses(false, notFound) },
      },
      handler: async (req) => read(await campaignReports.links(req.auth.accountId, pathId(req.params.id))),
    }),

    checks: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: 'Warnings about the content before it is sent (D22)',
        description:
          'Measured on the content as it would be sent: compiled in its format, in its layout, CSS inlined (as last saved). Codes: NO_TEXT_PART, IMAGE_ONLY, MISSING_ALT, HTML_OVER_102KB (Gmail clips), NO_UNSUBSCRIBE_LINK (the footer link is then added automatically, D16), BROKEN_LINK_SYNTAX, UNKNOWN_MERGE_FIELD (a merge field no contact field, custom field in use or link fills: it renders empty, D26.7). Warnings never stop a send.',
        tags,
        params: IdParams,
        response: { 200: Read(CampaignChecks), ...errorResponses(false, notFound) },
      },
      handler: async (req) => read(await campaignReports.checks(req.auth.accountId, pathId(req.params.id))),
    }),

    variants: defineRoute({
      permissions: ['campaigns.read'],
      schema: {
        summary: "The A/B test's variants with their results (D23)",
        description:
          "Each variant's subject and sender name (its own over the campaign's), its share of the audience (planned before sending starts), and its recipients' human opens and clicks with their rates over the delivered ones. `winner` is null while the test runs, then true for the chosen variant, whose figures include the rest of the audience it was sent to. A campaign without variants answers an empty list.",
        tags,
        params: IdParams,
        response: { 200: Read(VariantReport), ...errorResponses(false, notFound) },
      },
      handler: async (req) => read(await campaignReports.variantReport(req.auth.accountId, pathId(req.params.id))),
    }),

    retryFailed: defineRoute({
      permissions: ['campaigns.send'],
      schema: {
        summary: 'Put the FAILED recipients of a SENT or FAILED campaign back in line (D19)',
        description: 'Recipients whose contact is no longer SUBSCRIBED stay FAILED. The campaign is SENDING until they are done, then SENT as usual.',
        tags,
        params: IdParams,
        response: { 200: Written(Campaign), ...errorResponses(false, { ...notFound, 409: 'not SENT or FAILED, or no FAILED recipient to retry (INVALID_STATE)' }) },
      },
      handler: async (req) => written(await campaignLifecycle.retryFailed(actingOf(req), req.auth.accountId, pathId(req.params.id)), 'Failed recipients queued again'),
    }),
  };
}
