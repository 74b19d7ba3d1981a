import type { FastifyMultipartBaseOptions } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { TooLargeError } from '../domain/shared/errors.ts';
import { ApiError } from './errors.ts';
import { admitUpload } from './idempotency.ts';

/** The one uploaded file of a multipart/form-data request: its bytes and the name the client gave it. */
export interface UploadedFile {
  bytes: Buffer;
  filename: string | undefined;
}

/**
 * D22: busboy's limits for a one-file upload. One file more than allowed is let through so that
 * several files answer 400 (not the plugin's 413 for a files limit); a handful of small text
 * fields are tolerated and ignored. Past `fileSize` the plugin stops keeping bytes (the rest of
 * the stream is read and dropped), so at most maxBytes of a file is ever held in memory.
 */
export const uploadLimits = (maxBytes: number): NonNullable<FastifyMultipartBaseOptions['limits']> => ({
  fileSize: maxBytes,
  files: 2,
  fields: 10,
  fieldSize: 1024,
  fieldNameSize: 100,
  parts: 12,
  headerPairs: 20,
});

const malformed = () => new ApiError(400, 'INVALID_REQUEST', 'the body must be multipart/form-data with one file part named "file"');

/**
 * Reads the single file part named `file`. Not multipart: 415; malformed, no file, another name
 * or several files: 400; a file past the limit: 413.
 */
export async function readOneFile(req: FastifyRequest, maxBytes: number): Promise<UploadedFile> {
  if (!req.isMultipart()) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the file as multipart/form-data, in a part named "file"');
  let found: UploadedFile | null = null;
  try {
    for await (const part of req.parts({ limits: uploadLimits(maxBytes) })) {
      if (part.type !== 'file') continue;
      if (found || part.fieldname !== 'file') throw new ApiError(400, 'INVALID_REQUEST', 'send exactly one file, in a part named "file"');
      found = { bytes: await part.toBuffer(), filename: part.filename };
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new TooLargeError(`the file is larger than ${maxBytes} bytes`);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw new ApiError(400, 'INVALID_REQUEST', 'send one file part named "file" and nothing more');
    throw malformed();
  }
  if (!found) throw malformed();
  // D25.6: an upload's Idempotency-Key is checked against its file, now that it is read.
  await admitUpload(req, found);
  return found;
}
