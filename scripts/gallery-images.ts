/**
 * D26.4: the built-in gallery's pictures, drawn in code so that the service ships them and no
 * template loads anything from another host. They are flat illustrations (shapes, no text), at
 * twice the size they are shown at, for sharp screens.
 *   npm run gallery:images   draws them into src/domain/templates/builtin/images/
 * They are committed: the service serves them at PUBLIC_URL/media/builtin/<name>.png with a
 * year's cache, so a picture that changes must change its name too (and the .mjml that shows it).
 *
 * Each shape is a signed distance (negative inside, in pixels); a pixel is covered by as much of
 * the shape as the distance says (half a pixel each side of the edge), which smooths its edges.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_IMAGES_DIR } from '../src/domain/templates/builtin-images.ts';
import { encodePng } from './png.ts';

type Rgb = readonly [number, number, number];
/** A colour (`#rrggbb` or RGB), or a colour for each point. */
type Paint = string | Rgb | ((x: number, y: number) => Rgb);

interface Shape {
  distance(x: number, y: number): number;
  /** where the shape can be: left, top, right, bottom */
  box: readonly [number, number, number, number];
}

const hex = (value: string): Rgb => [1, 3, 5].map((i) => parseInt(value.slice(i, i + 2), 16)) as unknown as Rgb;
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((i) => a[i] + (b[i] - a[i]) * t) as unknown as Rgb;
const clamp01 = (t: number) => Math.min(1, Math.max(0, t));

/** A colour that runs from `from` at (x0, y0) to `to` at (x1, y1). */
function gradient(x0: number, y0: number, from: string, x1: number, y1: number, to: string): Paint {
  const [dx, dy] = [x1 - x0, y1 - y0];
  const length2 = dx * dx + dy * dy;
  return (x, y) => mix(hex(from), hex(to), clamp01(((x - x0) * dx + (y - y0) * dy) / length2));
}

// Shapes.
const circle = (cx: number, cy: number, r: number): Shape => ({ distance: (x, y) => Math.hypot(x - cx, y - cy) - r, box: [cx - r, cy - r, cx + r, cy + r] });

/** An ellipse, its distance approximated (exact enough for a smooth edge). */
const ellipse = (cx: number, cy: number, rx: number, ry: number): Shape => ({
  distance: (x, y) => (Math.hypot((x - cx) / rx, (y - cy) / ry) - 1) * Math.min(rx, ry),
  box: [cx - rx, cy - ry, cx + rx, cy + ry],
});

/** A rectangle with corners rounded by `r`. */
function rect(left: number, top: number, width: number, height: number, r = 0): Shape {
  const [cx, cy, hw, hh] = [left + width / 2, top + height / 2, width / 2 - r, height / 2 - r];
  return {
    distance: (x, y) => {
      const [qx, qy] = [Math.abs(x - cx) - hw, Math.abs(y - cy) - hh];
      return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
    },
    box: [left, top, left + width, top + height],
  };
}

function segmentDistance(x: number, y: number, [ax, ay]: readonly number[], [bx, by]: readonly number[]): number {
  const [px, py, dx, dy] = [x - ax, y - ay, bx - ax, by - ay];
  const t = clamp01((px * dx + py * dy) / (dx * dx + dy * dy || 1));
  return Math.hypot(px - dx * t, py - dy * t);
}

type Point = readonly [number, number];
const boxOf = (points: readonly Point[], pad: number): Shape['box'] => [
  Math.min(...points.map((p) => p[0])) - pad,
  Math.min(...points.map((p) => p[1])) - pad,
  Math.max(...points.map((p) => p[0])) + pad,
  Math.max(...points.map((p) => p[1])) + pad,
];

/** A line through `points`, `width` wide with round ends. */
const line = (points: readonly Point[], width: number): Shape => ({
  distance: (x, y) => {
    let d = Infinity;
    for (let i = 1; i < points.length; i++) d = Math.min(d, segmentDistance(x, y, points[i - 1], points[i]));
    return d - width / 2;
  },
  box: boxOf(points, width),
});

/** A closed polygon (its points in order). */
const polygon = (points: readonly Point[]): Shape => ({
  distance: (x, y) => {
    let d = Infinity;
    let inside = false;
    for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
      const [a, b] = [points[i], points[j]];
      d = Math.min(d, segmentDistance(x, y, a, b));
      if (a[1] > y !== b[1] > y && x < ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]) + a[0]) inside = !inside;
    }
    return inside ? -d : d;
  },
  box: boxOf(points, 1),
});

/** The shape grown by `r`: its corners rounded. */
const grown = (shape: Shape, r: number): Shape => ({ distance: (x, y) => shape.distance(x, y) - r, box: [shape.box[0] - r, shape.box[1] - r, shape.box[2] + r, shape.box[3] + r] });
/** The shape's outline, `width` wide. */
const outline = (shape: Shape, width: number): Shape => ({ distance: (x, y) => Math.abs(shape.distance(x, y)) - width / 2, box: grown(shape, width).box });
const intersect = (a: Shape, b: Shape): Shape => ({ distance: (x, y) => Math.max(a.distance(x, y), b.distance(x, y)), box: a.box });
const subtract = (a: Shape, b: Shape): Shape => ({ distance: (x, y) => Math.max(a.distance(x, y), -b.distance(x, y)), box: a.box });
const union = (...shapes: Shape[]): Shape => ({
  distance: (x, y) => Math.min(...shapes.map((s) => s.distance(x, y))),
  box: [Math.min(...shapes.map((s) => s.box[0])), Math.min(...shapes.map((s) => s.box[1])), Math.max(...shapes.map((s) => s.box[2])), Math.max(...shapes.map((s) => s.box[3]))],
});
/** The shape turned by `degrees` about (cx, cy). */
function rotated(shape: Shape, cx: number, cy: number, degrees: number): Shape {
  const [cos, sin] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  const reach = Math.max(...[0, 1].flatMap((i) => [2, 3].map((j) => Math.hypot(shape.box[i] - cx, shape.box[j] - cy))));
  return { distance: (x, y) => shape.distance(cx + (x - cx) * cos + (y - cy) * sin, cy - (x - cx) * sin + (y - cy) * cos), box: [cx - reach, cy - reach, cx + reach, cy + reach] };
}
/** Everything above (below: `below` true) the horizontal line at `y`. */
const halfPlane = (y: number, below = false): Shape => ({ distance: (_x, py) => (below ? y - py : py - y), box: [-1e4, -1e4, 1e4, 1e4] });
/** Stripes `width` wide every `period` pixels along `degrees`. */
function stripes(period: number, width: number, degrees: number): Shape {
  const [cos, sin] = [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  return { distance: (x, y) => Math.abs((((x * cos + y * sin) % period) + period) % period - period / 2) - width / 2, box: [-1e4, -1e4, 1e4, 1e4] };
}

/** A picture being drawn: straight (not premultiplied) RGBA in floats. */
class Canvas {
  private readonly pixels: Float64Array;

  constructor(
    readonly width: number,
    readonly height: number,
    background?: Paint,
  ) {
    this.pixels = new Float64Array(width * height * 4);
    if (background) this.fill(rect(0, 0, width, height), background);
  }

  fill(shape: Shape, paint: Paint, opacity = 1): this {
    const colourAt = typeof paint === 'string' ? () => hex(paint) : typeof paint === 'function' ? paint : () => paint;
    const [left, top, right, bottom] = shape.box;
    for (let y = Math.max(0, Math.floor(top) - 1); y < Math.min(this.height, Math.ceil(bottom) + 1); y++) {
      for (let x = Math.max(0, Math.floor(left) - 1); x < Math.min(this.width, Math.ceil(right) + 1); x++) {
        const alpha = clamp01(0.5 - shape.distance(x + 0.5, y + 0.5)) * opacity;
        if (alpha > 0) this.blend(x, y, colourAt(x + 0.5, y + 0.5), alpha);
      }
    }
    return this;
  }

  private blend(x: number, y: number, colour: Rgb, alpha: number): void {
    const i = (y * this.width + x) * 4;
    const below = this.pixels[i + 3];
    const out = alpha + below * (1 - alpha);
    for (let c = 0; c < 3; c++) this.pixels[i + c] = (colour[c] * alpha + this.pixels[i + c] * below * (1 - alpha)) / out;
    this.pixels[i + 3] = out;
  }

  /** The picture as a PNG: RGB when every pixel is opaque, else RGBA. */
  png(): Buffer {
    const opaque = this.pixels.every((v, i) => i % 4 !== 3 || v >= 0.999);
    const channels = opaque ? 3 : 4;
    const bytes = new Uint8Array(this.width * this.height * channels);
    for (let p = 0; p < this.width * this.height; p++) {
      for (let c = 0; c < channels; c++) bytes[p * channels + c] = Math.round(c === 3 ? this.pixels[p * 4 + 3] * 255 : this.pixels[p * 4 + c]);
    }
    return encodePng(this.width, this.height, bytes, channels);
  }
}

/** The same numbers on every run (a picture's scattered pieces): a linear congruential generator. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1664525 + 1013904223) % 4294967296) / 4294967296;
}

/** Lines of "text": rounded bars, `gap` apart, of the given widths. */
function textLines(canvas: Canvas, left: number, top: number, widths: number[], colour: string, height = 12, gap = 22): void {
  widths.forEach((w, i) => canvas.fill(rect(left, top + i * gap, w, height, height / 2), colour));
}

/** A logo stand-in (a mark and a name as two bars) in the brand's colour, on a clear ground. */
function logo(colour: string, mark: 'square' | 'leaf'): Canvas {
  const canvas = new Canvas(240, 64);
  if (mark === 'square') {
    canvas.fill(rect(8, 8, 48, 48, 12), colour);
    canvas.fill(circle(32, 32, 11), '#ffffff');
  } else {
    canvas.fill(circle(32, 32, 24), colour);
    canvas.fill(rotated(ellipse(32, 32, 14, 7), 32, 32, -45), '#ffffff');
  }
  canvas.fill(rect(70, 17, 130, 14, 7), colour);
  canvas.fill(rect(70, 38, 86, 10, 5), colour, 0.45);
  return canvas;
}

function newsletterFeature(): Canvas {
  const c = new Canvas(1200, 560, gradient(0, 0, '#2f6fde', 0, 560, '#1f3a5f'));
  c.fill(circle(1090, 30, 260), '#ffffff', 0.07).fill(circle(60, 560, 200), '#ffffff', 0.07).fill(circle(190, 110, 36), '#ffffff', 0.12);
  // an open magazine, its shadow first
  c.fill(rect(338, 124, 540, 370, 18), '#0b1b33', 0.25);
  c.fill(rect(330, 110, 270, 370, 16), '#ffffff').fill(rect(600, 110, 270, 370, 16), '#f3f6fc').fill(rect(596, 110, 8, 370), '#dbe4f3');
  c.fill(rect(360, 140, 210, 110, 10), '#e8eef9');
  c.fill(polygon([[372, 250], [430, 180], [470, 225], [495, 200], [560, 250]]), '#2f6fde').fill(circle(530, 170, 16), '#f59e0b');
  c.fill(rect(360, 268, 170, 18, 9), '#1f3a5f');
  textLines(c, 360, 302, [210, 196, 204, 180, 208, 120], '#c9d6ea');
  c.fill(rect(630, 140, 190, 18, 9), '#1f3a5f');
  textLines(c, 630, 174, [210, 190, 200, 150], '#c9d6ea');
  c.fill(rect(630, 270, 210, 180, 10), '#e8eef9');
  [[0, 60, '#93b4ef'], [1, 110, '#2f6fde'], [2, 85, '#93b4ef'], [3, 140, '#f59e0b']].forEach(([i, h, colour]) =>
    c.fill(rect(652 + (i as number) * 48, 430 - (h as number), 30, h as number, 6), colour as string),
  );
  // a cup of coffee beside it
  c.fill(outline(circle(1010, 402, 24), 12), '#fde8d8');
  c.fill(rect(930, 360, 84, 96, 16), '#fde8d8').fill(rect(914, 452, 120, 12, 6), '#c9d6ea');
  for (const x of [950, 972, 994]) c.fill(line([[x, 340], [x - 6, 326], [x + 4, 312], [x - 2, 298]], 5), '#ffffff', 0.6);
  return c;
}

function newsletterTeam(): Canvas {
  const c = new Canvas(540, 300, '#e8eef9');
  // a whiteboard with notes and a rising line
  c.fill(rect(48, 36, 270, 170, 12), '#ffffff');
  c.fill(line([[76, 176], [130, 140], [170, 154], [230, 96], [290, 70]], 6), '#2f6fde');
  c.fill(rotated(rect(80, 60, 46, 46, 4), 103, 83, -6), '#fde68a').fill(rotated(rect(140, 56, 46, 46, 4), 163, 79, 5), '#fecaca');
  c.fill(rect(48, 206, 10, 60, 3), '#9fb3d1').fill(rect(308, 206, 10, 60, 3), '#9fb3d1');
  // two people talking it over
  c.fill(rect(340, 168, 84, 150, 42), '#1f3a5f').fill(circle(382, 128, 28), '#f2c6a0').fill(intersect(circle(382, 124, 30), halfPlane(118)), '#3b2f2f');
  c.fill(rect(436, 188, 80, 130, 40), '#2f6fde').fill(circle(476, 150, 26), '#c68b59').fill(intersect(circle(476, 146, 28), halfPlane(140)), '#1b1e24');
  c.fill(rect(0, 262, 540, 38), '#c9d6ea');
  c.fill(polygon([[190, 262], [206, 222], [262, 222], [254, 262]]), '#1f3a5f').fill(rect(180, 258, 90, 6, 3), '#33363d');
  return c;
}

function newsletterTips(): Canvas {
  const c = new Canvas(540, 300, '#fde8d8');
  const [cx, cy] = [270, 120];
  for (let i = 0; i < 7; i++) {
    const angle = Math.PI + (i * Math.PI) / 6;
    const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
    c.fill(line([[cx + dx * 86, cy + dy * 86], [cx + dx * 112, cy + dy * 112]], 9), '#f59e0b');
  }
  c.fill(union(circle(cx, cy, 62), grown(polygon([[cx - 34, cy + 40], [cx + 34, cy + 40], [cx + 22, cy + 92], [cx - 22, cy + 92]]), 4)), '#fbbf24');
  c.fill(circle(cx - 22, cy - 22, 14), '#ffffff', 0.5);
  c.fill(line([[cx - 14, cy + 88], [cx - 14, cy + 40], [cx - 8, cy + 22], [cx, cy + 36], [cx + 8, cy + 22], [cx + 14, cy + 40], [cx + 14, cy + 88]], 4), '#8a3b12', 0.7);
  c.fill(rect(cx - 26, cy + 96, 52, 34, 8), '#8a3b12').fill(rect(cx - 26, cy + 106, 52, 4), '#fde8d8', 0.5).fill(rect(cx - 26, cy + 116, 52, 4), '#fde8d8', 0.5);
  for (let i = 0; i < 5; i++) c.fill(circle(190 + i * 40, 276, 7), '#8a3b12', 0.5);
  return c;
}

function announcementApp(): Canvas {
  const c = new Canvas(1040, 560, gradient(0, 0, '#6d28d9', 0, 560, '#4c1d95'));
  const dots = seeded(7);
  for (let i = 0; i < 12; i++) c.fill(circle(dots() * 1040, dots() * 560, 3 + dots() * 4), '#e4d8fb', 0.3);
  // a browser window with the app
  c.fill(rect(148, 84, 600, 400, 18), '#2e1065', 0.35);
  c.fill(rect(140, 70, 600, 400, 18), '#ffffff').fill(intersect(rect(140, 70, 600, 400, 18), rect(140, 70, 600, 44)), '#ede9fe');
  ['#f87171', '#fbbf24', '#34d399'].forEach((colour, i) => c.fill(circle(168 + i * 22, 92, 7), colour));
  c.fill(rect(160, 134, 140, 316, 10), '#f5f3ff');
  textLines(c, 178, 156, [100, 80, 92, 70, 88], '#c4b5fd', 12, 30);
  c.fill(rect(320, 134, 260, 22, 11), '#6d28d9');
  ['#ddd6fe', '#c4b5fd', '#a78bfa'].forEach((colour, i) => c.fill(rect(320 + i * 137, 176, 125, 110, 12), colour));
  c.fill(rect(320, 304, 400, 146, 12), '#f5f3ff');
  [50, 80, 64, 104, 90, 120].forEach((h, i) => c.fill(rect(344 + i * 60, 430 - h, 34, h, 6), i === 5 ? '#6d28d9' : '#c4b5fd'));
  // and on a phone
  c.fill(rect(708, 162, 200, 360, 30), '#2e1065', 0.35);
  c.fill(rect(700, 150, 200, 360, 30), '#1e1b2e').fill(rect(712, 164, 176, 332, 20), '#ffffff').fill(rect(772, 170, 56, 12, 6), '#1e1b2e');
  c.fill(circle(742, 212, 16), '#c4b5fd');
  textLines(c, 766, 202, [96, 64], '#ddd6fe', 10, 18);
  c.fill(rect(728, 248, 144, 96, 12), '#ede9fe').fill(polygon([[740, 332], [782, 286], [812, 314], [830, 296], [860, 332]]), '#a78bfa');
  textLines(c, 728, 362, [140, 120, 132], '#e4e4e7', 10, 20);
  c.fill(rect(738, 440, 124, 34, 17), '#6d28d9');
  return c;
}

function productHero(): Canvas {
  const c = new Canvas(1200, 640, gradient(0, 0, '#0f766e', 0, 640, '#115e59'));
  c.fill(circle(150, 660, 280), '#14b8a6', 0.3).fill(circle(1110, 20, 240), '#5eead4', 0.18).fill(circle(1180, 620, 150), '#14b8a6', 0.25);
  c.fill(circle(170, 150, 54), '#fcd34d', 0.9);
  // leaves at the edges, clear of the words in the middle
  // a leaf: where two circles overlap, with its middle vein
  const leaf = (x: number, y: number, degrees: number, colour: string) => {
    c.fill(rotated(intersect(circle(x, y + 70, 100), circle(x, y - 70, 100)), x, y, degrees), colour, 0.9);
    c.fill(rotated(line([[x - 64, y], [x + 70, y]], 3), x, y, degrees), '#0f766e', 0.5);
  };
  leaf(80, 420, -40, '#0d9488');
  leaf(150, 500, -15, '#2dd4bf');
  leaf(1080, 300, 35, '#0d9488');
  leaf(1010, 400, 60, '#2dd4bf');
  const dots = seeded(11);
  for (let i = 0; i < 16; i++) c.fill(circle(dots() * 1200, dots() * 640, 3 + dots() * 3), '#ccfbf1', 0.25);
  return c;
}

function productTote(): Canvas {
  const c = new Canvas(360, 360, '#e2f3f1');
  c.fill(ellipse(180, 312, 118, 14), '#0f766e', 0.15);
  c.fill(intersect(outline(circle(180, 142, 52), 12), halfPlane(142)), '#b89b6e');
  const bag = grown(polygon([[102, 146], [258, 146], [276, 296], [84, 296]]), 8);
  c.fill(bag, '#d9c3a0');
  c.fill(intersect(bag, rect(60, 206, 240, 28)), '#0f766e');
  c.fill(line([[116, 154], [244, 154]], 3), '#b89b6e');
  return c;
}

function productSneaker(): Canvas {
  const c = new Canvas(360, 360, '#fdf0e1');
  c.fill(ellipse(185, 282, 140, 14), '#9a4d0b', 0.15);
  c.fill(grown(polygon([[64, 250], [74, 172], [132, 150], [186, 186], [262, 198], [302, 226], [302, 250]]), 6), '#ffffff');
  c.fill(rect(54, 246, 258, 30, 15), '#9a4d0b');
  c.fill(line([[90, 232], [150, 214], [200, 230], [262, 224]], 10), '#f59e0b');
  for (let i = 0; i < 3; i++) c.fill(line([[146 + i * 16, 166 + i * 8], [164 + i * 16, 156 + i * 8]], 6), '#9a4d0b');
  c.fill(rect(64, 176, 20, 40, 8), '#f59e0b');
  return c;
}

function productScarf(): Canvas {
  const c = new Canvas(360, 360, '#ece8f7');
  c.fill(ellipse(180, 296, 130, 12), '#4c3a8a', 0.15);
  // folded three times, as a shop shows it, its fringe hanging from the front fold
  const folds = [rect(86, 108, 188, 56, 16), rect(74, 150, 212, 58, 16), rect(62, 194, 236, 62, 16)];
  ['#a995e6', '#b9a7ef', '#c7b8f3'].forEach((colour, i) => {
    c.fill(grown(folds[i], 3), '#ece8f7').fill(folds[i], colour);
    c.fill(intersect(folds[i], stripes(44, 12, 0)), '#4c3a8a', 0.8);
  });
  for (let x = 78; x <= 282; x += 12) c.fill(line([[x, 256], [x + 1, 274]], 4), '#4c3a8a');
  return c;
}

function welcomeHello(): Canvas {
  const c = new Canvas(400, 300, '#dcfce7');
  const pieces = seeded(3);
  const colours = ['#f59e0b', '#3b82f6', '#ef4444', '#a855f7', '#16a34a'];
  for (let i = 0; i < 60; i++) {
    const [x, y] = [pieces() * 400, pieces() * 300];
    if (Math.hypot(x - 200, y - 150) < 120) continue;
    const colour = colours[i % colours.length];
    if (i % 2) c.fill(circle(x, y, 5), colour);
    else c.fill(rotated(rect(x - 9, y - 4, 18, 8, 2), x, y, pieces() * 180), colour);
  }
  c.fill(circle(200, 150, 100), '#16a34a');
  // a heart: two circles and the point below them, along their tangents at 45 degrees
  const side = 26 * Math.SQRT1_2;
  c.fill(union(circle(178, 134, 26), circle(222, 134, 26), polygon([[178 - side, 134 + side], [178, 134], [222, 134], [222 + side, 134 + side], [200, 134 + side + (22 + side)]])), '#ffffff');
  return c;
}

function eventBanner(): Canvas {
  const c = new Canvas(1200, 500, gradient(0, 0, '#1c1917', 0, 500, '#292524'));
  const stars = seeded(5);
  for (let i = 0; i < 30; i++) c.fill(circle(stars() * 1200, stars() * 300, 1.5 + stars() * 1.5), '#fef3c7', 0.6);
  // a setting sun, cut by the lines of a horizon
  c.fill(subtract(circle(600, 330, 160), intersect(stripes(28, 10, 90), halfPlane(300, true))), gradient(0, 170, '#fde68a', 0, 400, '#f59e0b'));
  c.fill(rect(0, 396, 1200, 104), '#0c0a09');
  // a string of lights across the top
  const wire: Point[] = Array.from({ length: 41 }, (_, i) => [i * 30, 40 + 70 * Math.sin((i / 40) * Math.PI)]);
  c.fill(line(wire, 3), '#57534e');
  wire.forEach(([x, y], i) => {
    if (i % 2) return;
    c.fill(circle(x, y + 10, 18), '#fde68a', 0.18).fill(circle(x, y + 10, 7), '#fde68a');
  });
  return c;
}

/** A smooth line through `points` (Catmull-Rom), as `steps` straight pieces between each two. */
function smooth(points: readonly Point[], steps = 12): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < points.length - 1; i++) {
    const [p0, p1, p2, p3] = [points[Math.max(0, i - 1)], points[i], points[i + 1], points[Math.min(points.length - 1, i + 2)]];
    for (let s = 0; s < steps; s++) {
      const t = s / steps;
      const at = (k: 0 | 1) => 0.5 * (2 * p1[k] + (p2[k] - p0[k]) * t + (2 * p0[k] - 5 * p1[k] + 4 * p2[k] - p3[k]) * t * t + (3 * p1[k] - p0[k] - 3 * p2[k] + p3[k]) * t * t * t);
      out.push([at(0), at(1)]);
    }
  }
  return [...out, points[points.length - 1]];
}

/** A handwritten-looking "Alex": one stroke for the letters, one for the x's cross, a flourish under them. */
function plainSignature(): Canvas {
  const c = new Canvas(240, 80);
  const ink = '#334155';
  const letters: Point[] = [
    [18, 60], [30, 36], [44, 12], [50, 30], [56, 58], [46, 44], [30, 46], [52, 44], [62, 58], [72, 46],
    [84, 14], [90, 12], [88, 30], [82, 58], [92, 56], [104, 48], [112, 40], [104, 36], [96, 46], [100, 58],
    [114, 56], [126, 44], [140, 60], [148, 58],
  ];
  c.fill(line(smooth(letters), 3.2), ink);
  c.fill(line(smooth([[128, 60], [134, 52], [144, 42]]), 3), ink);
  c.fill(line(smooth([[22, 70], [90, 68], [160, 64], [214, 54]]), 2.4), ink);
  return c;
}

/** The social icons mj-social shows at 24 px: a white mark on the network's colour, as MJML's own (D26.4: served by us). */
function socialIcon(colour: string, mark: (c: Canvas) => void): Canvas {
  const c = new Canvas(48, 48);
  c.fill(rect(0, 0, 48, 48, 6), colour);
  mark(c);
  return c;
}

const SOCIAL_ICONS = {
  web: socialIcon('#4BADE9', (c) => {
    c.fill(outline(circle(24, 24, 13), 3), '#ffffff').fill(outline(ellipse(24, 24, 5.5, 13), 2.5), '#ffffff');
    c.fill(intersect(union(rect(11, 22.75, 26, 2.5), rect(11, 16.75, 26, 2.5), rect(11, 28.75, 26, 2.5)), circle(24, 24, 13)), '#ffffff');
  }),
  x: socialIcon('#000000', (c) => {
    c.fill(line([[14, 13], [34, 35]], 5), '#ffffff').fill(line([[34, 13], [14, 35]], 2.5), '#ffffff');
  }),
  linkedin: socialIcon('#0077B5', (c) => {
    c.fill(circle(15.5, 14.5, 3.5), '#ffffff').fill(rect(12.5, 20, 6, 16, 1), '#ffffff').fill(rect(22, 20, 5.5, 16, 1), '#ffffff');
    c.fill(union(intersect(outline(circle(31, 27, 5.25), 5.5), halfPlane(27)), rect(33.5, 26.5, 5.5, 9.5, 1)), '#ffffff');
  }),
};

/** Every picture by the name it is served under (`/media/builtin/<name>.png`). */
const IMAGES: Record<string, () => Canvas> = {
  'layout-logo': () => logo('#1f3a5f', 'square'),
  'welcome-logo': () => logo('#16a34a', 'leaf'),
  'welcome-hello': welcomeHello,
  'newsletter-feature': newsletterFeature,
  'newsletter-team': newsletterTeam,
  'newsletter-tips': newsletterTips,
  'announcement-app': announcementApp,
  'product-hero': productHero,
  'product-tote': productTote,
  'product-sneaker': productSneaker,
  'product-scarf': productScarf,
  'event-banner': eventBanner,
  'plain-signature': plainSignature,
  ...Object.fromEntries(Object.entries(SOCIAL_ICONS).map(([name, icon]) => [`social-${name}`, () => icon])),
};

mkdirSync(BUILTIN_IMAGES_DIR, { recursive: true });
for (const [name, draw] of Object.entries(IMAGES)) {
  const png = draw().png();
  writeFileSync(join(BUILTIN_IMAGES_DIR, `${name}.png`), png);
  console.log(`gallery:images: ${name}.png ${(png.length / 1024).toFixed(1)} KB`);
}
