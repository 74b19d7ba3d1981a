import type { ColumnType, Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Flag, JsonDocument } from './columns.ts';

/** Who is mailed: contacts, lists and memberships, consent records, sign-up forms, segments and the suppression list. */

export interface ContactsTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  tags: JsonDocument;
  custom_fields: JsonDocument;
  lead_score: ColumnType<number, number | undefined, number>;
  status: string;
  /** issue 28 M3: 1 while its only consent is a double opt-in not yet confirmed (migration 0020) */
  awaiting_confirmation: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ListsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** trimmed, lower-cased name: what uniqueness within the account is decided on (D12) */
  name_key: string;
  description: string | null;
  is_active: Flag;
  /** kept in the same transaction as every membership change, so list pages need no COUNT */
  contact_count: ColumnType<number, number | undefined, number>;
  /** D20: `single` or `double` */
  opt_in: ColumnType<ListOptIn, ListOptIn | undefined, ListOptIn>;
  /** D20: shown in the preference centre and usable by forms */
  is_public: Flag;
  /** D20: the list's own confirmation mail, or null for the default */
  confirmation_subject: string | null;
  confirmation_text: string | null;
  /** issue 28 M2: the verified-domain address the list's own subject and text go from; null: the fixed mail */
  confirmation_from_email: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ListOptIn = 'single' | 'double';
/** D20: only SUBSCRIBED memberships receive mail and count (`lists.contact_count`). */
export type MembershipStatus = 'SUBSCRIBED' | 'UNCONFIRMED' | 'UNSUBSCRIBED';

export interface ListMembersTable {
  list_id: number;
  contact_id: number;
  status: ColumnType<MembershipStatus, MembershipStatus | undefined, MembershipStatus>;
  status_changed_at: NullableTimestamp;
  created_at: Timestamp;
}

/** D20: a subscription by form, API, import or confirmation. */
export interface ConsentsTable {
  id: Generated<number>;
  account_id: number;
  contact_id: number;
  source: 'FORM' | 'API' | 'IMPORT' | 'CONFIRMATION' | 'EVENT';
  form_id: number | null;
  /** JSON array of list ids */
  list_ids: ColumnType<string, string | undefined, string>;
  ip: string | null;
  user_agent: string | null;
  /** issue 34: the words consent was given on (what an importer confirmed, or a form's consent checkbox as the person saw it when they ticked it); null when none were kept */
  statement: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

/** D20: a sign-up form, public at `/f/{uid}`. */
export interface FormsTable {
  id: Generated<number>;
  account_id: number;
  uid: string;
  name: string;
  /** JSON array of list ids */
  list_ids: string;
  /** JSON array of { name, label, required } */
  fields: string;
  success_message: string | null;
  redirect_url: string | null;
  /** issue 34 (migration 0031): the button's words and `#rrggbb` colour, the consent checkbox's words, where a confirmed person goes; null: none */
  button_text: ColumnType<string | null, string | null | undefined, string | null>;
  button_color: ColumnType<string | null, string | null | undefined, string | null>;
  consent_text: ColumnType<string | null, string | null | undefined, string | null>;
  confirm_redirect_url: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Issue 34: what the account says about one custom field key (migration 0031). */
export interface CustomFieldDefinitionsTable {
  id: Generated<number>;
  account_id: number;
  key: string;
  /** `text`, `number` or `boolean` */
  type: string;
  label: string | null;
  /** 1: the contact may change its value in the preference centre */
  editable_by_contact: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** D18: a saved filter over an account's contacts. */
export interface SegmentsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** trimmed, lower-cased name: uniqueness within the account ignores case, as for lists */
  name_key: string;
  description: string | null;
  /** the filter tree as JSON, checked when saved (segment-filter.ts) */
  filter: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** D19: an address or `@domain` the account never mails. */
export interface SuppressionsTable {
  id: Generated<number>;
  account_id: number;
  /** a lower-cased address, or `@` and a lower-cased domain */
  value: string;
  reason: string | null;
  /** MANUAL, BOUNCE, COMPLAINT, UNSUBSCRIBE or ERASURE */
  source: string;
  created_at: Timestamp;
}
