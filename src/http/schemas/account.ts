import { Type } from '@sinclair/typebox';
import { PLANS } from '../../domain/accounts/plans.ts';
import { TIME_ZONE_MAX_LENGTH } from '../../domain/shared/time-zone.ts';
import { StringEnum, Timestamp } from './common.ts';

const TimeZone = (description: string) => Type.String({ minLength: 1, maxLength: TIME_ZONE_MAX_LENGTH, description, examples: ['Europe/Paris'] });

/** Issue 34: the caller's own account and its settings. */
export const AccountSettings = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    plan: StringEnum(PLANS, { description: "set by the instance's operator (sendwell accounts update)" }),
    slug: Type.String({ description: "D22: names the account's public archive, /archive/{slug}" }),
    time_zone: TimeZone('IANA time zone the dashboard shows dates in and schedules by default; UTC unless set. Timestamps in the API stay UTC (D1).'),
    created_at: Timestamp,
  },
  { $id: 'AccountSettings' },
);

export const UpdateAccountBody = Type.Object({
  time_zone: Type.Optional(TimeZone('an IANA time zone name, kept as given (D26.9); an unknown one is 400 INVALID_REQUEST')),
});
