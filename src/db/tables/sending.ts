import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Flag } from './columns.ts';

/** Where mail goes from and to: sending domains and their warm-up days, and the development inbox. */

/** D23: a domain the account sends from, its DKIM key and its warm-up plan. */
export interface SendingDomainsTable {
  id: Generated<number>;
  account_id: number;
  /** lower-cased hostname */
  domain: string;
  selector: string;
  /** PEM (PKCS#8); never answered, never logged */
  dkim_private_key: string;
  /** base64 SPKI, the TXT record's p= */
  dkim_public_key: string;
  dkim_verified: Flag;
  spf_ok: Flag;
  dmarc_ok: Flag;
  checked_at: NullableTimestamp;
  found_dkim: string | null;
  found_spf: string | null;
  found_dmarc: string | null;
  warmup_enabled: Flag;
  warmup_start: number;
  warmup_factor: number;
  warmup_started_at: NullableTimestamp;
  created_at: Timestamp;
}

/** D23: messages claimed for sending per domain and UTC day, what the warm-up cap counts. */
export interface WarmupDaysTable {
  domain_id: number;
  /** YYYY-MM-DD, UTC */
  day: string;
  claimed: number;
}

export interface DevInboxTable {
  id: Generated<number>;
  account_id: number;
  campaign_id: number | null;
  message_id: string;
  from_address: string;
  to_address: string;
  subject: string;
  /** JSON object of the message's headers as they would go over SMTP */
  headers: string;
  html: string | null;
  text: string | null;
  /** the full MIME message */
  raw: string;
  created_at: Timestamp;
}
