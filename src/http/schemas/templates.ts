import { Type } from '@sinclair/typebox';
import { CONTENT_FORMATS } from '../../domain/content/content.ts';
import { TEMPLATE_LIMITS } from '../../domain/content/template-limits.ts';
import { TEMPLATE_KINDS, TEMPLATE_NAME_MAX } from '../../domain/templates/template.ts';
import { PageQuery, StringEnum, Timestamp } from './common.ts';

const kind = StringEnum(TEMPLATE_KINDS, { description: 'layout: wraps a campaign\'s content at its one `{{ content }}`; starter: content to begin a campaign from' });
const format = StringEnum(CONTENT_FORMATS, { description: 'the language the body is written in' });

export const TemplateObject = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    kind,
    format,
    body: Type.String({ description: 'the source, Liquid included' }),
    builtin: Type.Boolean({ description: 'part of the built-in gallery: every account sees it, none may change or delete it (409)' }),
    html: Type.String({ description: 'the body compiled alone to HTML with its CSS inlined, Liquid left as written (for thumbnails and previews)' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Template' },
);

const name = Type.String({ maxLength: 1000, description: `1-${TEMPLATE_NAME_MAX} characters after trimming` });
// The schema's bound only stops absurd bodies early; the service names the exact limit (bytes of UTF-8, Liquid tags).
const body = Type.String({
  maxLength: TEMPLATE_LIMITS.bytesMax,
  description: `at most ${TEMPLATE_LIMITS.bytesMax} bytes of UTF-8 and ${TEMPLATE_LIMITS.tagsMax} Liquid tags; valid Liquid; a layout holds \`{{ content }}\` exactly once; MJML compiles under strict validation (an error is 400 naming its line)`,
});

export const CreateTemplateBody = Type.Object({ name, kind, format, body });

export const UpdateTemplateBody = Type.Object({
  name: Type.Optional(name),
  kind: Type.Optional(kind),
  format: Type.Optional(format),
  body: Type.Optional(body),
});

/** Issue 34: what POST /templates/compile takes and answers. */
export const CompileContentBody = Type.Object({ format, body });
export const CompiledContent = Type.Object(
  { html: Type.String({ description: 'the body compiled alone to HTML with its CSS inlined, Liquid left as written' }) },
  { $id: 'CompiledContent' },
);

export const TemplatePageQuery = Type.Object({ ...PageQuery, kind: Type.Optional(kind) });
