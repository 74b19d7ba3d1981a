/**
 * D22's built-in gallery ships compiled (src/domain/templates/builtin/compiled.json), so that a
 * start never loads mjml on the HTTP thread: only the compile thread loads it, for users' content.
 *   npm run gallery:compile   compiles every built-in's .mjml and writes the file
 * builtin-templates.test.ts compiles them again and fails while the shipped file differs.
 */
import { writeFileSync } from 'node:fs';
import { compileGallery } from '../src/domain/templates/builtin-gallery-compile.ts';
import { COMPILED_GALLERY_FILE } from '../src/domain/templates/builtin-templates.ts';

writeFileSync(COMPILED_GALLERY_FILE, `${JSON.stringify(await compileGallery(), null, 2)}\n`);
console.log('gallery:compile: wrote src/domain/templates/builtin/compiled.json');
