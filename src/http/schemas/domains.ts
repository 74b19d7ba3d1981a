import { Type } from '@sinclair/typebox';
import { DNS_RECORD_PURPOSES } from '../../domain/domains/sending-domain.ts';
import { WARMUP_DEFAULTS, WARMUP_LIMITS } from '../../domain/domains/warmup.ts';
import { NullableString, NullableTimestamp, StringEnum, Timestamp } from './common.ts';

const DnsRecord = Type.Object({
  purpose: StringEnum(DNS_RECORD_PURPOSES),
  type: StringEnum(['TXT'] as const),
  name: Type.String({ description: 'where to publish it, e.g. sw20261126ab12._domainkey.example.com' }),
  value: Type.String({ description: "the TXT value; the DKIM one is longer than 255 bytes, which most DNS hosts split into strings for you" }),
});

const Warmup = Type.Object({
  enabled: Type.Boolean(),
  start: Type.Integer({ description: 'messages on the first day' }),
  factor: Type.Number({ description: 'daily growth: each UTC day may send factor times the day before' }),
  started_at: NullableTimestamp,
});

export const SendingDomainObject = Type.Object(
  {
    id: Type.Integer(),
    domain: Type.String(),
    selector: Type.String({ description: 'the DKIM selector' }),
    records: Type.Array(DnsRecord, { description: 'DKIM (required for signing), and SPF and DMARC suggestions' }),
    dkim_verified: Type.Boolean({ description: 'the DKIM record holds this key: mail from the domain is DKIM-signed' }),
    spf_ok: Type.Boolean({ description: 'exactly one SPF record is published' }),
    dmarc_ok: Type.Boolean({ description: 'exactly one DMARC record with a policy is published' }),
    checked_at: NullableTimestamp,
    found: Type.Object(
      { dkim: NullableString(), spf: NullableString(), dmarc: NullableString() },
      { description: 'the TXT values the last verification saw, or null' },
    ),
    warmup: Warmup,
    warmup_cap_today: Type.Union([Type.Integer(), Type.Null()], { description: 'round(start * factor^(UTC days since started_at)); null while warm-up is off' }),
    sent_today: Type.Integer({ description: "messages from the domain's campaigns handed to sending this UTC day, counted while warm-up is on" }),
    created_at: Timestamp,
  },
  { $id: 'SendingDomain' },
);

const WarmupInput = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'switched on without started_at, the plan starts today' })),
    start: Type.Optional(Type.Integer({ minimum: WARMUP_LIMITS.startMin, maximum: WARMUP_LIMITS.startMax, description: `messages on day 1 (default ${WARMUP_DEFAULTS.start})` })),
    factor: Type.Optional(Type.Number({ minimum: WARMUP_LIMITS.factorMin, maximum: WARMUP_LIMITS.factorMax, description: `daily growth (default ${WARMUP_DEFAULTS.factor})` })),
    started_at: Type.Optional(Type.Union([Type.String({ maxLength: 64, description: 'day 1 is this instant\'s UTC day (D1 form)' }), Type.Null()])),
  },
  { description: 'fields left out stay as they are' },
);

export const CreateSendingDomainBody = Type.Object({
  domain: Type.String({ maxLength: 1000, description: 'a hostname such as example.com or mail.example.com; unique per account' }),
  warmup: Type.Optional(WarmupInput),
});

export const UpdateSendingDomainBody = Type.Object({ warmup: Type.Optional(WarmupInput) });
