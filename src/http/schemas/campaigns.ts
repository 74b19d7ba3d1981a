import { HOLD_REASONS } from '../../domain/campaigns/campaign-hold.ts';
import { Type } from '@sinclair/typebox';
import { CAMPAIGN_STATUSES, RECIPIENT_STATUSES } from '../../domain/campaigns/campaign-status.ts';
import { CAMPAIGN_LIMITS } from '../../domain/campaigns/campaign.ts';
import { TEMPLATE_LIMITS } from '../../domain/content/template-limits.ts';
import { FOLLOW_UP_AUDIENCES } from '../../domain/campaigns/follow-up.ts';
import { AB_LIMITS, AB_METRICS } from '../../domain/campaigns/ab-test.ts';
import { TIME_OF_DAY } from '../../domain/campaigns/send-window.ts';
import { CONTENT_FORMATS } from '../../domain/content/content.ts';
import { CONTENT_WARNING_CODES } from '../../domain/content/content-checks.ts';
import { NullableString, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.ts';

export const CampaignStatus = Type.Union(
  CAMPAIGN_STATUSES.map((s) => Type.Literal(s)),
  { description: "D13's DRAFT, SCHEDULED, SENDING, SENT and FAILED, and issue 34's PAUSED (/pause: nothing more goes out until /resume) and CANCELLED (/cancel: final; the recipients not yet sent are CANCELLED)" },
);

const templateLimit = `a Liquid template: at most ${TEMPLATE_LIMITS.bytesMax} bytes of UTF-8 and ${TEMPLATE_LIMITS.tagsMax} tags and outputs`;

/** D23: what a variant changes over the base content; a field left out (or null) is the base's. */
export const Variant = Type.Object(
  {
    subject: Type.Optional(NullableString({ maxLength: CAMPAIGN_LIMITS.subjectMax })),
    from_name: Type.Optional(NullableString({ maxLength: CAMPAIGN_LIMITS.fromNameMax })),
    html: Type.Optional(NullableString({ description: templateLimit })),
    text: Type.Optional(NullableString({ description: templateLimit })),
  },
  { $id: 'CampaignVariant' },
);

export const AbTest = Type.Object(
  {
    test_percent: Type.Integer({ minimum: AB_LIMITS.testPercentMin, maximum: AB_LIMITS.testPercentMax, description: 'the share of the audience the test takes, split equally between the variants (at least one recipient each)' }),
    metric: StringEnum(AB_METRICS, { description: "what picks the winner: its rate over the variant's delivered recipients (D23's human opens or clicks)" }),
    wait_minutes: Type.Integer({ minimum: AB_LIMITS.waitMinutesMin, maximum: AB_LIMITS.waitMinutesMax, description: 'how long after the test share is sent (its last recipient final) the winner is picked' }),
  },
  { $id: 'CampaignAbTest' },
);

const Variants = Type.Array(Variant, {
  minItems: AB_LIMITS.variantsMin,
  maxItems: AB_LIMITS.variantsMax,
  description: 'D23 A/B test: 2-4 variants, with ab_test (both or neither); fixed once sending starts',
});

/** D23: when a campaign may send, in its own time zone. */
export const SendWindow = Type.Object(
  {
    days: Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), { minItems: 1, maxItems: 7, description: 'ISO weekdays: 1 = Monday ... 7 = Sunday' }),
    start: Type.String({ pattern: TIME_OF_DAY, description: 'local time HH:MM the window opens' }),
    end: Type.String({
      pattern: TIME_OF_DAY,
      description: 'local time HH:MM the window closes (exclusive); at or before `start`, the window runs past midnight into the next day',
    }),
    timezone: Type.String({ minLength: 1, maxLength: 100, description: 'IANA time zone, such as Europe/Berlin' }),
  },
);

const sendWindowField = Type.Union([SendWindow, Type.Null()], {
  description: 'D23: outside this window nothing is sent and the campaign stays SENDING; null: any time. It may change in any status.',
});

/** D22: what html (and each variant's html) is written in. */
const contentFormatField = StringEnum(CONTENT_FORMATS, { description: 'D22: what `html` and each variant\'s html are written in: html (the default), mjml (one <mjml> document, or sections when the layout is MJML) or markdown. MJML errors are 400 naming the line.' });

const templateIdField = Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
  description: "D22: a layout (kind layout) of the account or a built-in one, placed around the content at its {{ content }}; null: none. 404 TEMPLATE_NOT_FOUND for a missing or another account's id, 400 for a starter.",
});

export const Campaign = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    subject: NullableString(),
    status: CampaignStatus,
    total_recipients: Type.Integer({ description: '0 until sending starts, then the recipients snapshotted' }),
    created_at: Timestamp,
    sent_at: NullableTimestamp,
    from_name: NullableString(),
    from_email: NullableString(),
    reply_to: NullableString(),
    preheader: NullableString(),
    html: NullableString({ description: 'the content, written in `format` (D22)' }),
    text: NullableString(),
    format: contentFormatField,
    template_id: templateIdField,
    list_ids: Type.Array(Type.Integer()),
    segment_ids: Type.Array(Type.Integer(), { description: 'segments the audience also takes, read when sending starts (D18)' }),
    tags: Type.Array(Type.String(), { description: 'optional audience filter: contacts having any of these tags' }),
    follow_up: Type.Union(
      [Type.Object({ campaign_id: Type.Integer(), audience: StringEnum(FOLLOW_UP_AUDIENCES) }), Type.Null()],
      { description: "a follow-up's part of an earlier campaign's recipients (POST /campaigns/{id}/follow-up), else null" },
    ),
    variants: Type.Union([Variants, Type.Null()]),
    ab_test: Type.Union([AbTest, Type.Null()]),
    scheduled_at: NullableTimestamp,
    updated_at: Timestamp,
    error: NullableString({ description: 'why the campaign FAILED, else null' }),
    send_window: sendWindowField,
    archive: Type.Boolean({ description: "D22: shown in the account's public archive (/archive/{account slug}) once SENT" }),
    archive_url: NullableString({ description: 'D22: where the archive shows it, {PUBLIC_URL}/archive/{account slug}/{id}: null unless archived and SENT' }),
    held: Type.Union(
      [
        Type.Object({
          reason: StringEnum(HOLD_REASONS, { description: 'warmup: its From domain sent its warm-up cap today; send_window: outside its send window; pacing: every recipient left waits for its domain\'s pace or a retry' }),
          until: NullableTimestamp,
        }),
        Type.Null(),
      ],
      { description: 'D26.2: why a SENDING campaign is waiting, and when it goes on (null when unknown); null while it sends and in any other status' },
    ),
  },
  { $id: 'Campaign' },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: CAMPAIGN_LIMITS.nameMax }),
  subject: Type.Optional(NullableString({ maxLength: CAMPAIGN_LIMITS.subjectMax })),
  from_name: Type.Optional(NullableString({ maxLength: CAMPAIGN_LIMITS.fromNameMax })),
  from_email: Type.Optional(NullableString()),
  reply_to: Type.Optional(NullableString()),
  preheader: Type.Optional(NullableString({ maxLength: CAMPAIGN_LIMITS.preheaderMax })),
  // Issue 14 H2: each template is bounded in bytes and Liquid tags (TEMPLATE_LIMITS); the service checks both and names the field.
  html: Type.Optional(NullableString({ description: templateLimit })),
  text: Type.Optional(NullableString({ description: templateLimit })),
  format: Type.Optional(contentFormatField),
  template_id: Type.Optional(templateIdField),
  // As for contacts' list_id: no id exceeds 2^53, and a larger one made PostgreSQL fail with a 500.
  list_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { maxItems: 100 })),
  segment_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), { maxItems: 100, description: 'segments of the account (D18); 404 SEGMENT_NOT_FOUND otherwise' })),
  // As for contacts (D11): the 100-tag limit applies after de-duplication, so the schema only caps the raw array.
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 })),
  variants: Type.Optional(Type.Union([Variants, Type.Null()])),
  ab_test: Type.Optional(Type.Union([AbTest, Type.Null()])),
  send_window: Type.Optional(sendWindowField),
  archive: Type.Optional(Type.Boolean({ description: 'D22: default false; may change in any status (archiving a SENT campaign is the usual way), with or without send_window, but with no other field once the campaign cannot be edited' })),
};

export const CreateCampaignBody = Type.Object(fields);
export const UpdateCampaignBody = Type.Object({ ...fields, name: Type.Optional(fields.name) });

export const CampaignQuery = Type.Object({ ...PageQuery, status: Type.Optional(CampaignStatus) });

const rate = (description: string) => Type.Number({ description: `${description}, percent rounded to 2 decimals (0 when the denominator is 0)` });

export const CampaignStatistics = Type.Object(
  {
    sent: Type.Integer({ description: 'total messages sent' }),
    delivered: Type.Integer({ description: 'sent minus bounced' }),
    opened: Type.Integer({ description: 'unique opens' }),
    clicked: Type.Integer({ description: 'unique clicks' }),
    bounced: Type.Integer(),
    complained: Type.Integer(),
    unsubscribed: Type.Integer(),
    open_rate: rate('opened / delivered'),
    click_rate: rate('clicked / delivered'),
    bounce_rate: rate('bounced / sent'),
    click_to_open_rate: rate('clicked / opened'),
    unsubscribe_rate: rate('unsubscribed / delivered'),
    human_opened: Type.Integer({ description: 'D23: recipients with at least one open by a person (a human click counts as an open)' }),
    machine_opened: Type.Integer({
      description: "D23: recipients with at least one open by a machine: a mail privacy proxy (Apple's network or user agent), a scanner, a HEAD request. One recipient may count here and in human_opened; opens from before the classification count in neither",
    }),
    human_clicked: Type.Integer({ description: 'D23: recipients with at least one click by a person' }),
    machine_clicked: Type.Integer({ description: 'D23: recipients with at least one click by a machine: a scanner, a HEAD request, or a click within 2 seconds of delivery' }),
    human_open_rate: rate('human_opened / delivered'),
    human_click_rate: rate('human_clicked / delivered'),
  },
  { $id: 'CampaignStatistics' },
);

export const ScheduleBody = Type.Object({
  scheduled_at: Type.String({ description: 'a future date-time: YYYY-MM-DDTHH:MM:SS (UTC) or ISO 8601 with an offset' }),
});

/** D22 preview, used by the dashboard's editor (issue 15): whose data fills the merge fields. */
export const PreviewBody = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 254, description: "a contact's address (404 CONTACT_NOT_FOUND when it is no contact of the account); without it, the first SUBSCRIBED member of the campaign's lists, else sample data" })),
  variant: Type.Optional(Type.Integer({ minimum: 0, maximum: 3, description: "D23: the variant (0-based) to preview over the base content; without it, the base content" })),
  subject: Type.Optional(Type.Union([Type.String({ maxLength: 998 }), Type.Null()], { description: 'unsaved content to preview instead of the saved one (the editor sends what is typed)' })),
  preheader: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  html: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  text: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  // D22: the unsaved format and layout; given html, format or template_id, the content is compiled as saving would.
  format: Type.Optional(contentFormatField),
  template_id: Type.Optional(templateIdField),
});

export const CampaignPreview = Type.Object(
  {
    subject: Type.String(),
    html: Type.Union([Type.String(), Type.Null()]),
    text: Type.Union([Type.String(), Type.Null()], { description: 'the text part as sent: the campaign\'s own, or made from the HTML (D17.2)' }),
    merge_data: Type.Union([Type.Literal('contact'), Type.Literal('list member'), Type.Literal('sample')], { description: 'whose data filled the merge fields' }),
  },
  { $id: 'CampaignPreview' },
);

export const TestSendBody = Type.Object({ emails: Type.Array(Type.String(), { minItems: 1, maxItems: 10 }) });

export const TestSendResult = Type.Object({
  results: Type.Array(
    Type.Object({
      email: Type.String(),
      outcome: Type.Union([Type.Literal('sent'), Type.Literal('bounced'), Type.Literal('deferred')]),
      error: NullableString(),
    }),
  ),
});

export const FollowUpBody = Type.Object({ audience: StringEnum(FOLLOW_UP_AUDIENCES, { description: "which of the original's delivered recipients" }) });

/** D19: the recipient ledger. */
export const RecipientQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(RECIPIENT_STATUSES)),
  opened: Type.Optional(Type.Boolean({ description: 'true: opened; false: not (yet) opened' })),
  clicked: Type.Optional(Type.Boolean()),
});

export const LedgerEntry = Type.Object(
  {
    contact_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null once the contact was deleted; the row stays for the statistics' }),
    email: Type.String(),
    status: StringEnum(RECIPIENT_STATUSES, { description: 'PENDING: not sent yet (waiting, being sent, or held for an A/B winner); CANCELLED: never sent, its campaign was cancelled (issue 34)' }),
    attempts: Type.Integer(),
    last_error: NullableString({ description: "the mail server's last reply, or why it was not sent" }),
    sent_at: NullableTimestamp,
    opened_at: NullableTimestamp,
    clicked_at: NullableTimestamp,
    unsubscribed_at: Type.Union([Timestamp, Type.Null()], { description: "when the recipient unsubscribed through this message's link (issue 34)" }),
    complained_at: Type.Union([Timestamp, Type.Null()], { description: 'when a complaint (a spam report) about this message arrived (issue 34)' }),
  },
  { $id: 'CampaignRecipient' },
);

export const LinkReport = Type.Object({
  links: Type.Array(Type.Object({ url: Type.String(), clicks: Type.Integer(), unique_clicks: Type.Integer({ description: 'recipients who clicked it' }) })),
});

/** D23: one variant's results in GET /campaigns/{id}/variants. */
export const VariantResult = Type.Object(
  {
    index: Type.Integer({ description: "0-based, as in the campaign's `variants`" }),
    subject: NullableString({ description: "the variant's subject, else the campaign's" }),
    from_name: NullableString({ description: "the variant's sender name, else the campaign's" }),
    share_percent: Type.Number({ description: "percent of the audience that gets this variant (the winner's includes the rest); before sending starts, the planned test share" }),
    sent: Type.Integer(),
    human_opened: Type.Integer(),
    human_clicked: Type.Integer(),
    human_open_rate: rate('human_opened / delivered'),
    human_click_rate: rate('human_clicked / delivered'),
    winner: Type.Union([Type.Boolean(), Type.Null()], { description: 'null while the test runs; then true for the chosen variant, false for the others' }),
  },
  { $id: 'CampaignVariantResult' },
);

export const VariantReport = Type.Object({ variants: Type.Array(VariantResult) });

/** D22: what may hurt the campaign's delivery or reading, found before it is sent. */
export const CampaignChecks = Type.Object(
  {
    warnings: Type.Array(
      Type.Object({
        code: StringEnum(CONTENT_WARNING_CODES),
        message: Type.String({ description: 'what was found and what to do about it' }),
      }),
    ),
  },
  { $id: 'CampaignChecks' },
);
