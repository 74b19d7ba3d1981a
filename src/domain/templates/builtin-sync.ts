import type { Db } from '../../db/connect.ts';
import { nowIso } from '../shared/time.ts';
import { builtinTemplates } from './builtin-templates.ts';
import { findBuiltins, upsertBuiltin } from './templates.repo.ts';

/**
 * D22: writes the built-in gallery from the code into the templates table, right after the
 * migrations (server start, `sendwell migrate` and every one-shot CLI command). Only a built-in
 * the code has changed (or a new one) is compiled and written, so a start normally costs one
 * read. Several processes starting at once on PostgreSQL are safe: each write is one
 * INSERT ... ON CONFLICT (builtin_key) DO UPDATE, and they all write the same values. A built-in
 * a later release drops stays in the table (campaigns may name it by id). Their HTML ships
 * compiled with the code (builtin-templates.ts), so nothing is compiled here. Their images are
 * written on `publicUrl` (D26.4), so a start with another PUBLIC_URL rewrites them: every process
 * must have the same one.
 */
export async function syncBuiltinTemplates(db: Db, publicUrl: string): Promise<void> {
  const stored = new Map((await findBuiltins(db)).map((row) => [row.builtin_key, row]));
  for (const template of builtinTemplates(publicUrl)) {
    const row = stored.get(template.builtin_key);
    if (row && row.name === template.name && row.kind === template.kind && row.format === template.format && row.body === template.body && row.compiled_html === template.compiled_html) continue;
    const now = nowIso();
    await upsertBuiltin(db, { ...template, created_at: now, updated_at: now });
  }
}
