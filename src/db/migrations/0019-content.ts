import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.ts';

/**
 * D22: content.
 * - `templates`: layouts (wrapping content at `{{ content }}`) and starters, in `html`, `mjml` or
 *   `markdown`. Built-in ones have no account and a `builtin_key`; they are written at start-up
 *   from the code (templates/builtin), so a release can improve them. `compiled_html` is the body
 *   compiled to HTML when it was saved (for thumbnails and previews).
 * - `campaigns.format` (`html` for every existing campaign), `template_id` (a layout),
 *   `archive` (0/1), and `compiled_html`: the content compiled, laid out and inlined, which is
 *   what the sender renders (written on save and again when sending starts; null until then, when
 *   the html is used as it is). `compiled_variants`: the same for each A/B variant's html (JSON).
 * - `accounts.slug`: unique, made from the name; existing accounts get theirs here.
 * - `media`: images uploaded to the account's library, the file under DATA_DIR/media.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
  const id = <T extends { addColumn: (...a: any[]) => T }>(table: T): T =>
    dialect === 'postgres' ? table.addColumn('id', 'bigserial', (c: any) => c.primaryKey()) : table.addColumn('id', 'integer', (c: any) => c.primaryKey().autoIncrement());

  await id(db.schema.createTable('templates'))
    // null for a built-in template
    .addColumn('account_id', 'bigint', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('builtin_key', 'text', (c) => c.unique())
    .addColumn('name', 'text', (c) => c.notNull())
    // layout | starter
    .addColumn('kind', 'text', (c) => c.notNull())
    // html | mjml | markdown
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('compiled_html', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('templates_account_idx').on('templates').columns(['account_id', 'id']).execute();

  await db.schema.alterTable('campaigns').addColumn('format', 'text', (c) => c.notNull().defaultTo('html')).execute();
  // no reference: deleting a layout in use is refused by the service (409), and a sent campaign keeps its compiled_html
  await db.schema.alterTable('campaigns').addColumn('template_id', 'bigint').execute();
  await db.schema.alterTable('campaigns').addColumn('archive', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('campaigns').addColumn('compiled_html', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('compiled_variants', 'text').execute();
  await db.schema.createIndex('campaigns_template_idx').on('campaigns').columns(['template_id']).execute();

  await db.schema.alterTable('accounts').addColumn('slug', 'text').execute();
  const accounts = await db.selectFrom('accounts').select(['id', 'name']).orderBy('id').execute();
  const taken = new Set<string>();
  for (const account of accounts) {
    const slug = uniqueSlug(slugOf(String(account.name)), (s) => taken.has(s));
    taken.add(slug);
    await db.updateTable('accounts').set({ slug }).where('id', '=', account.id).execute();
  }
  await db.schema.createIndex('accounts_slug_idx').unique().on('accounts').column('slug').execute();

  await id(db.schema.createTable('media'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // the unguessable name the file is stored and served under: <uid>.<ext>
    .addColumn('file_name', 'text', (c) => c.notNull().unique())
    // the uploaded file's own name, for people
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('media_account_idx').on('media').columns(['account_id', 'id']).execute();
}

/*
 * The slug rule as it stood when this migration shipped (domain/accounts/account-slug.ts of
 * 2026-11-27), copied rather than imported: a shipped migration must give the same result
 * whatever the domain's rule becomes later (issue 29, item 1). Never edit it to follow that file.
 */
const SLUG_MAX = 60;

function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '');
  return slug === '' ? 'account' : slug;
}

function uniqueSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '') + suffix;
    if (!taken(candidate)) return candidate;
  }
}
