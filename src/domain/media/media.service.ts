import type { ActingContext } from '../shared/actor.ts';
import { randomBytes } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { mkdir, open, unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { DbHandle } from '../../db/connect.ts';
import type { MediaRow } from '../../db/schema.ts';
import { NotFoundError, TooLargeError, UnsupportedMediaTypeError } from '../shared/errors.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { nowIso, toApiTimestamp } from '../shared/time.ts';
import { EXTENSIONS, oversizedImage, sniffImage } from './image-sniff.ts';
import { MEDIA_NAME_MAX } from './media.ts';
import * as repo from './media.repo.ts';
import { lockAccount } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';

/** D22: an image of the account's media library, as the API answers it. */
export interface Media {
  id: number;
  name: string;
  /** where the image is served to anyone (mail clients included): PUBLIC_URL/media/{file_name} */
  url: string;
  content_type: string;
  size: number;
  width: number | null;
  height: number | null;
  created_at: string;
}

export interface MediaLimits {
  /** one file's most bytes (MEDIA_MAX_BYTES) */
  maxBytes: number;
  /** the most bytes one account's library may hold (MEDIA_ACCOUNT_MAX_BYTES) */
  accountMaxBytes: number;
}

/** A served file: where it is on disk and what to call it. */
export interface MediaFile {
  contentType: string;
  size: number;
  stream: ReadStream;
}

/** The names files are stored and served under: 128 random bits and the sniffed kind's extension. */
const FILE_NAME = /^[A-Za-z0-9_-]{22}\.(png|jpg|gif|webp)$/;

export const mediaNotFound = () => new NotFoundError('MEDIA_NOT_FOUND', 'media not found');

/**
 * The uploaded file's own name, kept only for people to read (never a path): the last path
 * segment, without control characters, at most 255 characters; none given, a name from the kind.
 */
export function mediaName(raw: string | undefined, extension: string): string {
  const cleaned = basename((raw ?? '').replace(/\\/g, '/'))
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return Array.from(cleaned || `image.${extension}`).slice(0, MEDIA_NAME_MAX).join('');
}

export class MediaService {
  private readonly dir: string;

  constructor(
    private readonly handle: DbHandle,
    dataDir: string,
    private readonly publicUrl: string,
    readonly limits: MediaLimits,
  ) {
    this.dir = join(dataDir, 'media');
  }

  private present(row: MediaRow): Media {
    return {
      id: Number(row.id),
      name: row.name,
      url: `${this.publicUrl}/media/${row.file_name}`,
      content_type: row.content_type,
      size: Number(row.size),
      width: row.width,
      height: row.height,
      created_at: toApiTimestamp(row.created_at),
    };
  }

  /**
   * D22: stores an image. What it is comes from its bytes alone (PNG, JPEG, GIF or WebP; else
   * 415, SVG included), and its declared size must be within IMAGE_MAX_SIDE and IMAGE_MAX_PIXELS
   * (415); the caller has already stopped reading past limits.maxBytes. The account's library may
   * not grow past limits.accountMaxBytes (413).
   *
   * Issue 28 M4: the bytes are reserved before the file is written, by inserting the row in a
   * transaction that counts the library under a lock (concurrent uploads of one account are
   * counted one after another, so together they never pass the cap); the file is written only
   * once the row stands, and the row goes again if the write fails. Between the two the row is
   * listed while its file is still being written: `/media/{file}` answers 404 for that moment.
   */
  async upload(acting: ActingContext, accountId: number, bytes: Buffer, clientName: string | undefined): Promise<Media> {
    if (bytes.length > this.limits.maxBytes) throw new TooLargeError(`the file is larger than ${this.limits.maxBytes} bytes`);
    const image = sniffImage(bytes);
    if (!image) throw new UnsupportedMediaTypeError('the file is not a PNG, JPEG, GIF or WebP image (SVG is not taken: it can hold script)');
    const oversized = oversizedImage(image);
    if (oversized) throw new UnsupportedMediaTypeError(oversized);
    const extension = EXTENSIONS[image.kind];
    const fileName = `${randomBytes(16).toString('base64url')}.${extension}`;
    const row = await this.handle.db.transaction().execute(async (trx) => {
      // SQLite transactions already run one at a time (BEGIN IMMEDIATE, see db/connect.ts).
      if (this.handle.dialect === 'postgres') await lockAccount(trx, accountId);
      const used = await repo.accountMediaBytes(trx, accountId);
      if (used + bytes.length > this.limits.accountMaxBytes) {
        throw new TooLargeError(`the media library is full: it holds ${used} of its ${this.limits.accountMaxBytes} bytes (MEDIA_ACCOUNT_MAX_BYTES); delete images to make room`);
      }
      const inserted = await repo.insertMedia(trx, {
        account_id: accountId,
        file_name: fileName,
        name: mediaName(clientName, extension),
        content_type: image.contentType,
        size: bytes.length,
        width: image.width,
        height: image.height,
        created_at: nowIso(),
      });
      // D24.8: with the reservation; a disk write that then fails releases the row and says so (media.upload_failed).
      await recordAudit(trx, acting, accountId, 'media.uploaded', { type: 'media', id: inserted.id });
      return inserted;
    });
    const path = join(this.dir, fileName);
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(path, bytes, { flag: 'wx', mode: 0o644 });
    } catch (err) {
      // The reservation is released: a failed write holds no room in the library.
      await this.handle.db.transaction().execute(async (trx) => {
        await repo.deleteMedia(trx, accountId, Number(row.id));
        await recordAudit(trx, acting, accountId, 'media.upload_failed', { type: 'media', id: row.id });
      });
      await unlink(path).catch(() => {});
      throw err;
    }
    return this.present(row);
  }

  async page(accountId: number, page: PageRequest) {
    const { rows, total } = await repo.pageMedia(this.handle.db, accountId, page);
    return toPage('media', rows.map((row) => this.present(row)), total, page);
  }

  async get(accountId: number, id: number): Promise<Media> {
    const row = await repo.findMedia(this.handle.db, accountId, id);
    if (!row) throw mediaNotFound();
    return this.present(row);
  }

  /** Removes the row, then the file; mail already sent that shows the image shows a broken one from now on. */
  async delete(acting: ActingContext, accountId: number, id: number): Promise<void> {
    const row = await repo.findMedia(this.handle.db, accountId, id);
    if (!row) throw mediaNotFound();
    await this.handle.db.transaction().execute(async (trx) => {
      await repo.deleteMedia(trx, accountId, id);
      await recordAudit(trx, acting, accountId, 'media.deleted', { type: 'media', id });
    });
    await unlink(join(this.dir, row.file_name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /** The public file behind `/media/{file_name}`; a name of any other shape never reaches the disk. */
  async file(fileName: string): Promise<MediaFile> {
    if (!FILE_NAME.test(fileName)) throw mediaNotFound();
    const row = await repo.findMediaByFileName(this.handle.db, fileName);
    if (!row) throw mediaNotFound();
    // Opened here, so a file gone from disk is a 404 rather than a failed stream.
    const handle = await open(join(this.dir, row.file_name)).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? mediaNotFound() : err;
    });
    return { contentType: row.content_type, size: Number(row.size), stream: handle.createReadStream() };
  }
}
