import { Type } from '@sinclair/typebox';
import { MEDIA_NAME_MAX } from '../../domain/media/media.ts';
import { documentedAs, Timestamp } from './common.ts';

/** D22: an image of the account's media library. */
export const MediaObject = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ description: `the uploaded file's own name (at most ${MEDIA_NAME_MAX} characters), for people; never used as a path` }),
    url: Type.String({ description: 'where anyone (mail clients included) loads it: PUBLIC_URL/media/{random name}.{png|jpg|gif|webp}' }),
    content_type: Type.String({ description: 'image/png, image/jpeg, image/gif or image/webp, from the file\'s own bytes' }),
    size: Type.Integer({ description: 'bytes' }),
    width: Type.Union([Type.Integer(), Type.Null()], { description: 'pixels, from the image header; null when it does not say' }),
    height: Type.Union([Type.Integer(), Type.Null()]),
    created_at: Timestamp,
  },
  { $id: 'Media' },
);

/**
 * The upload's body is read by the multipart plugin, not the validator: anything passes here,
 * and the document shows the form it takes.
 */
export const UploadMediaBody = documentedAs(Type.Any(), {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', format: 'binary', description: 'a PNG, JPEG, GIF or WebP image (judged by its bytes, not its declared type); SVG is refused' } },
});

export const MediaFileParams = Type.Object({ file: Type.String({ maxLength: 100, description: 'the random name in the image\'s url' }) });

const image = { schema: { type: 'string', format: 'binary' } };

export const MediaFileBody = documentedAs(Type.Any(), {
  description: 'The image, with its Content-Type, X-Content-Type-Options: nosniff, a Content-Security-Policy that runs nothing, and a year\'s Cache-Control (a name is never reused)',
  content: { 'image/png': image, 'image/jpeg': image, 'image/gif': image, 'image/webp': image },
});

/** D26.4: a picture of the built-in gallery, by its file name. */
export const BuiltinImageParams = Type.Object({ file: Type.String({ pattern: '^[a-z0-9-]{1,64}\\.png$', description: 'the picture\'s file name, as the built-in templates name it' }) });

export const BuiltinImageBody = documentedAs(Type.Any(), {
  description: 'The PNG, with X-Content-Type-Options: nosniff, a Content-Security-Policy that runs nothing, and a year\'s Cache-Control (a picture that changes changes its name)',
  content: { 'image/png': image },
});
