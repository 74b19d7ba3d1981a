import type { ColumnType } from 'kysely';

/**
 * Timestamps are written as ISO 8601 strings (UTC). SQLite keeps them as TEXT and returns strings;
 * PostgreSQL keeps timestamptz and returns Date objects. `toApiTimestamp` reads both.
 * Flags are INTEGER 0/1 on both dialects so one code path binds them (better-sqlite3 cannot bind booleans).
 * JSON documents (tags, custom fields, permissions) are TEXT on both dialects.
 */
export type Timestamp = ColumnType<string | Date, string, string>;
export type NullableTimestamp = ColumnType<string | Date | null, string | null | undefined, string | null>;
export type Flag = ColumnType<number, number | undefined, number>;
/** A JSON document written as JSON text: SQLite keeps the text, PostgreSQL `jsonb` and returns it parsed. `readJson` reads both. */
export type JsonDocument = ColumnType<string | object, string, string>;
