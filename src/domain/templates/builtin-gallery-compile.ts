import { compileContent } from '../content/compile-content.ts';
import { BUILTIN_SOURCES } from './builtin-templates.ts';

/**
 * Each built-in's compiled HTML by its key, as `npm run gallery:compile` ships it and the gallery
 * test checks it: the code's own files, compiled as a user's content would be, with no layout.
 */
export async function compileGallery(): Promise<Record<string, string>> {
  const compiled: Record<string, string> = {};
  for (const template of BUILTIN_SOURCES) compiled[template.builtin_key] = await compileContent({ format: template.format, body: template.body }, null, template.builtin_key);
  return compiled;
}
