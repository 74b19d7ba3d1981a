import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './columns.ts';

/** What campaigns are made of: templates (layouts and starters) and the image library. */

/** D22: a layout or a starter; built-in ones have no account and a builtin_key. */
export interface TemplatesTable {
  id: Generated<number>;
  account_id: number | null;
  builtin_key: string | null;
  name: string;
  /** layout | starter */
  kind: string;
  /** html | mjml | markdown */
  format: string;
  body: string;
  /** the body compiled to HTML when saved */
  compiled_html: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** D22: an image in the account's media library, stored under DATA_DIR/media as file_name. */
export interface MediaTable {
  id: Generated<number>;
  account_id: number;
  file_name: string;
  name: string;
  content_type: string;
  size: ColumnType<number | string, number, number>;
  width: number | null;
  height: number | null;
  created_at: Timestamp;
}
