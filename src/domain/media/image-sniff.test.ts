import { describe, expect, it } from 'vitest';
import { gif, jpeg, png, webp } from '../../../test/helpers/images.ts';
import { IMAGE_MAX_PIXELS, IMAGE_MAX_SIDE, oversizedImage, sniffImage, sniffKind } from './image-sniff.ts';

describe('image sniffing (D22 media library)', () => {
  it('knows the four kinds by their first bytes and reads their size', () => {
    expect(sniffImage(png(640, 480))).toEqual({ kind: 'png', contentType: 'image/png', width: 640, height: 480 });
    expect(sniffImage(jpeg(1200, 300))).toEqual({ kind: 'jpeg', contentType: 'image/jpeg', width: 1200, height: 300 });
    expect(sniffImage(gif(16, 9))).toEqual({ kind: 'gif', contentType: 'image/gif', width: 16, height: 9 });
    expect(sniffImage(webp(5000, 1))).toEqual({ kind: 'webp', contentType: 'image/webp', width: 5000, height: 1 });
  });

  it('reads the size of a lossy (VP8) and an extended (VP8X) WebP', () => {
    const lossy = Buffer.alloc(30);
    lossy.write('RIFF', 0, 'latin1');
    lossy.write('WEBPVP8 ', 8, 'latin1');
    lossy.set([0x9d, 0x01, 0x2a], 23);
    lossy.writeUInt16LE(320, 26);
    lossy.writeUInt16LE(200, 28);
    expect(sniffImage(lossy)).toMatchObject({ kind: 'webp', width: 320, height: 200 });
    const extended = Buffer.alloc(30);
    extended.write('RIFF', 0, 'latin1');
    extended.write('WEBPVP8X', 8, 'latin1');
    extended.writeUIntLE(799, 24, 3);
    extended.writeUIntLE(599, 27, 3);
    expect(sniffImage(extended)).toMatchObject({ kind: 'webp', width: 800, height: 600 });
  });

  it('finds a JPEG frame after other segments (EXIF, tables, fill bytes)', () => {
    const exif = Buffer.concat([Buffer.from([0xff, 0xe1, 0, 8]), Buffer.alloc(6)]);
    const file = jpeg(33, 44);
    const withExif = Buffer.concat([file.subarray(0, 2), exif, Buffer.from([0xff]), file.subarray(2)]);
    expect(sniffImage(withExif)).toMatchObject({ width: 33, height: 44 });
  });

  it('refuses what is not one of the four, whatever it claims to be', () => {
    for (const text of ['hello', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', '<!doctype html><img src=x onerror=alert(1)>', '%PDF-1.7', 'GIF88a', 'RIFF\0\0\0\0WAVEfmt ']) {
      expect(sniffKind(Buffer.from(text))).toBeNull();
      expect(sniffImage(Buffer.from(text))).toBeNull();
    }
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
  });

  it('keeps a truncated or hostile header from failing: the size is simply unknown', () => {
    expect(sniffImage(png(10, 10).subarray(0, 12))).toEqual({ kind: 'png', contentType: 'image/png', width: null, height: null });
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toMatchObject({ kind: 'jpeg', width: null });
    expect(sniffImage(Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(1000, 0xff)]))).toMatchObject({ kind: 'jpeg', width: null });
    expect(sniffImage(gif(0, 0))).toMatchObject({ kind: 'gif', width: null, height: null });
    expect(sniffImage(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toMatchObject({ kind: 'webp', width: null });
  });
});

describe('issue 28 (PNG dimensions): declared sizes past the limits are named', () => {
  const cases: { width: number | null; height: number | null; refused: boolean }[] = [
    { width: 10_000, height: 5_000, refused: false }, // 50 megapixels exactly, each side at its cap
    { width: 10_001, height: 1, refused: true },
    { width: 1, height: 10_001, refused: true },
    { width: 10_000, height: 5_001, refused: true }, // over 50 megapixels
    { width: 4294967295, height: 4294967295, refused: true },
    { width: null, height: null, refused: false }, // no size declared: nothing to judge
  ];
  it.each(cases)('$width x $height refused: $refused', ({ width, height, refused }) => {
    const reason = oversizedImage({ width, height });
    if (refused) expect(reason).toMatch(new RegExp(`${width} x ${height} pixels; at most ${IMAGE_MAX_SIDE} pixels a side and ${IMAGE_MAX_PIXELS / 1e6} megapixels`));
    else expect(reason).toBeNull();
  });

  it('reads the 4294967295 x 4294967295 a forged PNG header declares, so the upload can refuse it', () => {
    const forged = Buffer.from(png(1, 1));
    forged.writeUInt32BE(0xffffffff, 16);
    forged.writeUInt32BE(0xffffffff, 20);
    expect(sniffImage(forged)).toMatchObject({ kind: 'png', width: 4294967295, height: 4294967295 });
  });
});
