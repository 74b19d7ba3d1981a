import { Type } from '@sinclair/typebox';
import { TIMELINE_KINDS, TIMELINE_LIMITS } from '../../domain/timeline/timeline.ts';
import { NullableString, StringEnum, Timestamp } from './common.ts';

/** Issue 34: a contact's timeline is paged by cursor (its history has no bound to count or skip). */
export const TimelineQuery = Type.Object({
  size: Type.Integer({ minimum: 1, maximum: TIMELINE_LIMITS.sizeMax, default: TIMELINE_LIMITS.sizeDefault, description: `entries per page (1-${TIMELINE_LIMITS.sizeMax})` }),
  cursor: Type.Optional(Type.String({ maxLength: TIMELINE_LIMITS.cursorMax, description: "the previous page's `next_cursor`, as it came; absent: the newest entries" })),
});

const Ref = Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()]);

export const TimelineEntry = Type.Object(
  {
    kind: StringEnum(TIMELINE_KINDS, {
      description:
        'sent, opened, clicked, bounced, complained, unsubscribed: a message to the contact (opened and clicked by a person; opened_by_machine and clicked_by_machine by a mail privacy proxy or link scanner, D23); subscribed: a consent record (a form sign-up, a confirmation, the API, an import); left_list; event (POST /v1/events); automation_run (when it started)',
    }),
    at: Timestamp,
    id: Type.Integer({ description: "the source row's id: the campaign recipient, consent record, list, event or automation run" }),
    campaign: { ...Ref, description: "the message's campaign; null when the campaign was deleted or the message was an automation's" },
    form: { ...Ref, description: 'subscribed: the form signed up with, else null' },
    list: { ...Ref, description: 'left_list: the list left' },
    automation: { ...Ref, description: 'automation_run: its automation' },
    event: NullableString({ description: "event: the event's name" }),
    detail: NullableString({ description: "subscribed: the consent's source (FORM, API, IMPORT, CONFIRMATION, EVENT); automation_run: the run's status" }),
  },
  { $id: 'TimelineEntry' },
);

export const TimelinePage = Type.Object({
  entries: Type.Array(TimelineEntry),
  next_cursor: NullableString({ description: 'pass as `cursor` for the next, older entries; null on the last page' }),
  size: Type.Integer(),
});
