import { deflateSync } from 'node:zlib';

/**
 * A PNG encoder in a few lines over node's zlib, for the pictures the repository makes in code
 * (the built-in gallery's images, scripts/gallery-images.ts; the tests' images). Each row gets
 * the filter that leaves the smallest sum of bytes (the PNG specification's heuristic), which
 * keeps flat colours and gradients to a few kilobytes.
 */

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
  return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
}

/** One row filtered with each of PNG's five filters; the one whose bytes (as signed) sum least. */
function filteredRow(row: Uint8Array, previous: Uint8Array, bpp: number): Buffer {
  let best: Buffer | null = null;
  let bestSum = Infinity;
  for (let filter = 0; filter <= 4; filter++) {
    const out = Buffer.alloc(row.length + 1);
    out[0] = filter;
    let sum = 0;
    for (let i = 0; i < row.length; i++) {
      const left = i >= bpp ? row[i - bpp] : 0;
      const up = previous[i];
      const upLeft = i >= bpp ? previous[i - bpp] : 0;
      const predicted = filter === 0 ? 0 : filter === 1 ? left : filter === 2 ? up : filter === 3 ? (left + up) >> 1 : paeth(left, up, upLeft);
      const value = (row[i] - predicted) & 0xff;
      out[i + 1] = value;
      sum += value < 128 ? value : 256 - value;
    }
    if (sum < bestSum) [best, bestSum] = [out, sum];
  }
  return best!;
}

/** `pixels` (rows top to bottom, 8 bits a channel: RGB, or RGBA with `channels` 4) as a PNG file. */
export function encodePng(width: number, height: number, pixels: Uint8Array, channels: 3 | 4): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, channels === 4 ? 6 : 2, 0, 0, 0], 8); // 8 bits a channel, RGBA or RGB, no interlace
  const stride = width * channels;
  const rows: Buffer[] = [];
  let previous: Uint8Array = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = pixels.subarray(y * stride, (y + 1) * stride);
    rows.push(filteredRow(row, previous, channels));
    previous = row;
  }
  const data = deflateSync(Buffer.concat(rows), { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', data), pngChunk('IEND', Buffer.alloc(0))]);
}
