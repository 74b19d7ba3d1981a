/**
 * D22 media library: what an uploaded file really is, decided by its first bytes (magic numbers),
 * never by the type or file name the client declared, and its pixel size from the header.
 * Only PNG, JPEG, GIF and WebP are images here. SVG is refused on purpose: it is XML that can
 * carry script, and it is served from the service's own origin.
 */

export const IMAGE_KINDS = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
} as const;

export type ImageKind = keyof typeof IMAGE_KINDS;

/** The file extension each kind is stored under. */
export const EXTENSIONS: Record<ImageKind, string> = { png: 'png', jpeg: 'jpg', gif: 'gif', webp: 'webp' };

export interface SniffedImage {
  kind: ImageKind;
  contentType: (typeof IMAGE_KINDS)[ImageKind];
  /** null when the header does not say (a truncated or unusual file that still starts right) */
  width: number | null;
  height: number | null;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61];
const GIF89 = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

/** The image kind the bytes start with, or null for anything else (text, HTML, SVG, PDF...). */
export function sniffKind(bytes: Uint8Array): ImageKind | null {
  if (startsWith(bytes, PNG)) return 'png';
  if (startsWith(bytes, JPEG)) return 'jpeg';
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return 'gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'webp';
  return null;
}

/** The image the bytes hold, with its size when the header gives one; null when they are not one of the four kinds. */
export function sniffImage(bytes: Uint8Array): SniffedImage | null {
  const kind = sniffKind(bytes);
  if (kind === null) return null;
  const size = DIMENSIONS[kind](new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const valid = size !== null && size.width > 0 && size.height > 0;
  return { kind, contentType: IMAGE_KINDS[kind], width: valid ? size.width : null, height: valid ? size.height : null };
}

type Size = { width: number; height: number } | null;

/**
 * Issue 28: the most pixels an image may declare, a side and in all. A header is four bytes the
 * uploader writes (a PNG may say 4294967295 x 4294967295), and whatever later decodes or resizes
 * the image (a mail client, the dashboard's preview) trusts it; mail images are far smaller.
 */
export const IMAGE_MAX_SIDE = 10_000;
export const IMAGE_MAX_PIXELS = 50_000_000;

/** Why the image's declared size is refused, or null when it is within the limits (or not declared). */
export function oversizedImage(image: Pick<SniffedImage, 'width' | 'height'>): string | null {
  const { width, height } = image;
  if (width === null || height === null) return null;
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE || width * height > IMAGE_MAX_PIXELS) {
    return `the image declares ${width} x ${height} pixels; at most ${IMAGE_MAX_SIDE} pixels a side and ${IMAGE_MAX_PIXELS / 1_000_000} megapixels in all are taken`;
  }
  return null;
}

const DIMENSIONS: Record<ImageKind, (view: DataView) => Size> = {
  // The IHDR chunk comes first: length (4), "IHDR" (4), width and height big-endian.
  png: (v) => (v.byteLength >= 24 ? { width: v.getUint32(16), height: v.getUint32(20) } : null),
  // The logical screen size, little-endian, right after the signature.
  gif: (v) => (v.byteLength >= 10 ? { width: v.getUint16(6, true), height: v.getUint16(8, true) } : null),
  jpeg: jpegSize,
  webp: webpSize,
};

/** Start-of-frame markers carry the size; 0xC4 (DHT), 0xC8 (JPG) and 0xCC (DAC) share the range but do not. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** Walks the JPEG's segments up to its first start-of-frame; each step moves forward, so a hostile file ends the loop. */
function jpegSize(v: DataView): Size {
  let at = 2;
  while (at + 4 <= v.byteLength) {
    if (v.getUint8(at) !== 0xff) return null;
    const marker = v.getUint8(at + 1);
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    // Markers without a length: TEM and RSTn; SOS and EOI end the headers.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null;
    const length = v.getUint16(at + 2);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) return at + 9 <= v.byteLength ? { height: v.getUint16(at + 5), width: v.getUint16(at + 7) } : null;
    at += 2 + length;
  }
  return null;
}

/** WebP's first chunk after "WEBP" is VP8 (lossy), VP8L (lossless) or VP8X (extended); each says the size its own way. */
function webpSize(v: DataView): Size {
  if (v.byteLength < 30) return null;
  const chunk = String.fromCharCode(v.getUint8(12), v.getUint8(13), v.getUint8(14), v.getUint8(15));
  if (chunk === 'VP8 ') {
    // frame tag (3) and start code 9d 01 2a, then 14-bit width and height
    if (v.getUint8(23) !== 0x9d || v.getUint8(24) !== 0x01 || v.getUint8(25) !== 0x2a) return null;
    return { width: v.getUint16(26, true) & 0x3fff, height: v.getUint16(28, true) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (v.getUint8(20) !== 0x2f) return null;
    const bits = v.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    const uint24 = (at: number) => v.getUint8(at) | (v.getUint8(at + 1) << 8) | (v.getUint8(at + 2) << 16);
    return { width: uint24(24) + 1, height: uint24(27) + 1 };
  }
  return null;
}
