/**
 * Issue 35's raw reference: the SQL texts a contact's create sends, as Kysely compiles them for
 * SQLite (src/domain/contacts/contacts.repo.ts, suppressions.repo.ts, automations.repo.ts,
 * audit.repo.ts, outbound-webhooks/deliveries.repo.ts). The API bench's floor (g) and the
 * write-path bench run them on the driver alone; `?` placeholders (numbered for pg by the caller).
 */
/** A contact's read with its memberships in one statement, as contacts.repo.ts's lookup sends it: the floors (i) and (j). */
export const READ_SQL = {
  sqlite:
    "select contacts.*, (select json_group_array(json_object('list_id', list_id, 'status', status)) from (select m.list_id, m.status from list_members m where m.contact_id = contacts.id order by m.list_id)) as memberships from contacts where contacts.account_id = ? and contacts.email = ?",
  postgres:
    "select contacts.*, (select coalesce(json_agg(json_build_object('list_id', m.list_id, 'status', m.status) order by m.list_id), '[]'::json)::text from list_members m where m.contact_id = contacts.id) as memberships from contacts where contacts.account_id = $1 and contacts.email = $2",
};

/**
 * The same work as one PostgreSQL statement (data-modifying CTEs), so one round trip and its own
 * transaction: the insert, the erased-address check, the audit entry, the webhook fan-out and the
 * listening workflows. Only the PostgreSQL floor of the create runs it (bench/bare-server.ts):
 * SQLite has no data-modifying CTEs, so Sendwell's areas cannot share such a statement.
 * $1 account, $2 email, $3 first_name, $4 tags, $5 now, $6 erasure value, $7 actor id, $8 actor
 * label, $9 ip, $10 user agent, $11 event id, $12 payload.
 */
export const CREATE_AS_ONE_PG_STATEMENT = `with ins as (
    insert into contacts (account_id, email, first_name, last_name, phone, tags, custom_fields, status, awaiting_confirmation, created_at, updated_at)
    values ($1, $2, $3, null, null, $4, '{}', 'SUBSCRIBED', 0, $5::timestamptz, $5::timestamptz) returning *),
  aud as (
    insert into audit_log (account_id, at, actor_type, actor_id, actor_label, action, target_type, target_id, ip, user_agent)
    select ins.account_id, ins.created_at, 'api_key', $7, $8, 'contact.created', 'contact', ins.id::text, $9, $10 from ins),
  deliv as (
    insert into webhook_deliveries (endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
    select e.id, $11, 'contact.created', $12, 'PENDING', 0, ins.created_at, ins.created_at, ins.created_at
    from ins join webhook_endpoints e on e.account_id = ins.account_id and e.is_active = 1
    join webhook_endpoint_events s on s.endpoint_id = e.id and s.event_type = 'contact.created')
  select ins.*,
    exists (select 1 from suppressions where account_id = $1 and source = 'ERASURE' and value = $6) as erased,
    (select coalesce(json_agg(a), '[]') from (select id, trigger_type, trigger_key, allow_reentry from automations where account_id = $1 and is_active = 1 and trigger_type in ('CONTACT_CREATED', 'TAG_ADDED')) a) as listening
  from ins`;

export const CREATE_SQL = {
  insertContact:
    'insert into "contacts" ("account_id", "email", "first_name", "last_name", "phone", "tags", "custom_fields", "status", "awaiting_confirmation", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *',
  erased: 'select "value" from "suppressions" where "account_id" = ? and "source" = ? and "value" = ?',
  listening: 'select "id", "trigger_type", "trigger_key", "allow_reentry" from "automations" where "account_id" = ? and "is_active" = ? and "trigger_type" in (?, ?)',
  audit: 'insert into "audit_log" ("account_id", "at", "actor_type", "actor_id", "actor_label", "action", "target_type", "target_id", "ip", "user_agent") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  /** `timestampType`: text on SQLite, timestamptz on PostgreSQL */
  webhookFanOut: (timestampType: 'text' | 'timestamptz') => `insert into webhook_deliveries (endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
    select e.id, v.event_id, v.event_type, v.payload, 'PENDING', 0, v.now, v.now, v.now
    from (select cast(? as bigint) as account_id, cast(? as text) as event_id, cast(? as text) as event_type, cast(? as text) as payload, cast(? as ${timestampType}) as now) v
    join webhook_endpoints e on e.account_id = v.account_id and e.is_active = 1
    join webhook_endpoint_events s on s.endpoint_id = e.id and s.event_type = v.event_type`,
};
