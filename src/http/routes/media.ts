import { actingOf } from '../acting.ts';
import { Type } from '@sinclair/typebox';
import type { HttpParts } from '../http-parts.ts';
import { readOneFile } from '../multipart-file.ts';
import { defineRoute, pathId, read, written } from '../route.ts';
import { errorResponses, IdParams, PageOf, PageQuery, Read, Written } from '../schemas/common.ts';
import { mediaNotFound } from '../../domain/media/media.service.ts';
import { builtinImage } from '../../domain/templates/builtin-images.ts';
import { BuiltinImageBody, BuiltinImageParams, MediaFileBody, MediaFileParams, MediaObject, UploadMediaBody } from '../schemas/media.ts';

const tags = ['Media'];
const notFound = { 404: 'MEDIA_NOT_FOUND' };

/**
 * D22 (our addition): a served file runs nothing and is never sniffed into something else: an
 * image named .png is served as what its bytes were judged to be at upload. Names are random and
 * never reused, so browsers and mail proxies may keep it for a year.
 */
const FILE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'public, max-age=31536000, immutable',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/** D22: the account's image library, and the public address each image is served at. */
export function mediaRoutes({ media }: Pick<HttpParts, 'media'>) {
  return {
    upload: defineRoute({
      permissions: ['campaigns.write'],
      multipart: true,
      schema: {
        summary: 'Upload an image to the media library (multipart/form-data, one part named file)',
        description:
          'The file is judged by its bytes: PNG, JPEG, GIF and WebP are taken, anything else (SVG, HTML, text) is 415 whatever its declared type or name. ' +
          'An image whose header declares more than 10,000 pixels a side or 50 megapixels in all is 415 too. ' +
          'At most MEDIA_MAX_BYTES per file (default 5 MB) and MEDIA_ACCOUNT_MAX_BYTES per account (default 500 MB), else 413. ' +
          'Malformed multipart, no file part, or more than one file is 400.',
        tags,
        consumes: ['multipart/form-data'],
        body: UploadMediaBody,
        response: {
          200: Written(MediaObject),
          ...errorResponses(false, {
            400: 'Not well-formed multipart/form-data, no part named file, or several files (INVALID_REQUEST)',
            413: 'The file is over MEDIA_MAX_BYTES, or the account\'s library would pass MEDIA_ACCOUNT_MAX_BYTES (PAYLOAD_TOO_LARGE)',
            415: 'Not multipart/form-data, the file is not a PNG, JPEG, GIF or WebP image, or it declares more than 10,000 pixels a side or 50 megapixels (UNSUPPORTED_MEDIA_TYPE)',
          }),
        },
      },
      handler: async (req) => {
        const file = await readOneFile(req, media.limits.maxBytes);
        return written(await media.upload(actingOf(req), req.auth.accountId, file.bytes, file.filename), 'Image uploaded');
      },
    }),

    page: defineRoute({
      permissions: ['campaigns.read'],
      schema: { summary: 'Page through the media library, newest first', tags, querystring: Type.Object(PageQuery), response: { 200: Read(PageOf('media', MediaObject)), ...errorResponses(false) } },
      handler: async (req) => read(await media.page(req.auth.accountId, req.query)),
    }),

    get: defineRoute({
      permissions: ['campaigns.read'],
      schema: { summary: 'Read an image of the media library', tags, params: IdParams, response: { 200: Read(MediaObject), ...errorResponses(false, notFound) } },
      handler: async (req) => read(await media.get(req.auth.accountId, pathId(req.params.id))),
    }),

    delete: defineRoute({
      permissions: ['campaigns.write'],
      schema: {
        summary: 'Delete an image: its file goes too',
        description: 'Its URL answers 404 from then on, also in mail already sent.',
        tags,
        params: IdParams,
        response: { 200: Written(Type.Object({ id: Type.Integer() })), ...errorResponses(false, notFound) },
      },
      handler: async (req) => {
        const id = pathId(req.params.id);
        await media.delete(actingOf(req), req.auth.accountId, id);
        return written({ id }, 'Image deleted');
      },
    }),

    file: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'An image of a media library, for anyone (mail clients load it)',
        tags,
        params: MediaFileParams,
        response: { 200: MediaFileBody, ...errorResponses(false, notFound) },
      },
      handler: async (req, reply) => {
        const file = await media.file(req.params.file);
        return reply.headers({ ...FILE_HEADERS, 'Content-Type': file.contentType, 'Content-Length': String(file.size) }).send(file.stream);
      },
    }),

    builtinFile: defineRoute({
      permissions: 'public',
      schema: {
        summary: 'A picture of the built-in templates, for anyone (mail clients load it)',
        description: 'D26.4: the built-in templates show only pictures the service ships, at PUBLIC_URL/media/builtin/{file}.',
        tags,
        params: BuiltinImageParams,
        response: { 200: BuiltinImageBody, ...errorResponses(false, notFound) },
      },
      handler: async (req, reply) => {
        const png = builtinImage(req.params.file);
        if (!png) throw mediaNotFound();
        return reply.headers({ ...FILE_HEADERS, 'Content-Type': 'image/png', 'Content-Length': String(png.length) }).send(png);
      },
    }),
  };
}
