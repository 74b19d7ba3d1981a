import type { Db } from '../../db/connect.ts';
import { compileContent } from '../content/compile-content.ts';
import { nowIso } from '../shared/time.ts';
import { BUILTIN_TEMPLATES } from './builtin-templates.ts';
import { findBuiltins, upsertBuiltin } from './templates.repo.ts';

/**
 * D22: writes the built-in gallery from the code into the templates table, right after the
 * migrations (server start, `sendwell migrate` and every one-shot CLI command). Only a built-in
 * the code has changed (or a new one) is compiled and written, so a start normally costs one
 * read. Several processes starting at once on PostgreSQL are safe: each write is one
 * INSERT ... ON CONFLICT (builtin_key) DO UPDATE, and they all write the same values. A built-in
 * a later release drops stays in the table (campaigns may name it by id). They are compiled here,
 * not on the compile thread users' content goes to: they are the code's own files, known to compile.
 */
export async function syncBuiltinTemplates(db: Db): Promise<void> {
  const stored = new Map((await findBuiltins(db)).map((row) => [row.builtin_key, row]));
  for (const template of BUILTIN_TEMPLATES) {
    const row = stored.get(template.builtin_key);
    if (row && row.name === template.name && row.kind === template.kind && row.format === template.format && row.body === template.body && row.compiled_html) continue;
    const now = nowIso();
    const compiled_html = await compileContent({ format: template.format, body: template.body }, null, template.builtin_key);
    await upsertBuiltin(db, { ...template, compiled_html, created_at: now, updated_at: now });
  }
}
