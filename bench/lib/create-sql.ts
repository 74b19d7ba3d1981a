/**
 * Issue 35's raw reference: the SQL texts a contact's create sends, as Kysely compiles them for
 * SQLite (src/domain/contacts/contacts.repo.ts, suppressions.repo.ts, automations.repo.ts,
 * audit.repo.ts, outbound-webhooks/deliveries.repo.ts). The API bench's floor (g) and the
 * write-path bench run them on the driver alone; `?` placeholders (numbered for pg by the caller).
 */
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
