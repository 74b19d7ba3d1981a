import { encodePng } from '../../scripts/png.ts';

/**
 * Small images of the four kinds the media library takes (D22), made in code so tests need no
 * image files. The PNG is a real, decodable picture (browsers show it); the others carry correct
 * headers (signature and size), which is all the library reads of them.
 */

/** A width x height PNG of one colour (RGB). */
export function png(width: number, height: number, rgb: [number, number, number] = [40, 120, 200]): Buffer {
  return encodePng(width, height, new Uint8Array(Array.from({ length: width * height }, () => rgb).flat()), 3);
}

/** A GIF89a header with its logical screen size, a one-pixel image and the trailer. */
export function gif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen.set([0x80, 0, 0], 4);
  const rest = [0xff, 0xff, 0xff, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b];
  return Buffer.concat([Buffer.from('GIF89a', 'latin1'), screen, Buffer.from(rest)]);
}

/** A JPEG's headers: SOI, a JFIF APP0 segment, then a baseline start-of-frame with the size, and EOI. */
export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.alloc(19);
  sof.set([0xff, 0xc0, 0, 17, 8]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  sof.set([3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1], 9);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

/** A lossless WebP (VP8L) header with the size; the pixel data is left out. */
export function webp(width: number, height: number): Buffer {
  const vp8l = Buffer.alloc(5);
  vp8l[0] = 0x2f;
  vp8l.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 1);
  const chunk = Buffer.concat([Buffer.from('VP8L', 'latin1'), Buffer.from([vp8l.length, 0, 0, 0]), vp8l, Buffer.alloc(16)]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(4 + chunk.length);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), size, Buffer.from('WEBP', 'latin1'), chunk]);
}

/** A multipart/form-data body with one file part, as a browser's FormData sends it (D22 media uploads). */
export function imageForm(bytes: Buffer, name = 'picture.png', opts: { field?: string; type?: string } = {}): FormData {
  const form = new FormData();
  form.append(opts.field ?? 'file', new Blob([new Uint8Array(bytes)], { type: opts.type ?? 'image/png' }), name);
  return form;
}
