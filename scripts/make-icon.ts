#!/usr/bin/env bun
/**
 * `bun scripts/make-icon.ts [OUT]`: draws the bundle icon (packaging/icon.png, 512×512 RGBA, the size Claude Desktop
 * recommends): a
 * d20 silhouette (hexagon with its inner triangle) on a rounded dark-red tile. Deterministic, no
 * image library, no network: pixels are computed with 4×4 supersampling and written as a PNG.
 */
import { deflateSync } from "node:zlib";
import { join } from "node:path";

const SIZE = 512;
const K = SIZE / 256; // the drawing is specified at 256 px
const SS = 4;
type Pt = [number, number];

function inRoundedSquare(x: number, y: number, r: number): boolean {
  const m = 8 * K; // margin
  const lo = m + r;
  const hi = SIZE - m - r;
  const cx = Math.min(Math.max(x, lo), hi);
  const cy = Math.min(Math.max(y, lo), hi);
  return x >= m && x <= SIZE - m && y >= m && y <= SIZE - m && (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

function distToSegment(p: Pt, a: Pt, b: Pt): number {
  const [px, py] = p;
  const [ax, ay] = a;
  const [bx, by] = b;
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

const c = SIZE / 2;
const R = 88 * K;
const hex: Pt[] = Array.from({ length: 6 }, (_, i) => {
  const a = (Math.PI / 3) * i - Math.PI / 2;
  return [c + R * Math.cos(a), c + R * Math.sin(a)];
});
const tri: Pt[] = [0, 2, 4].map((i) => {
  const a = (Math.PI / 3) * i - Math.PI / 2 + Math.PI / 3;
  return [c + R * 0.55 * Math.cos(a + Math.PI / 3), c + R * 0.55 * Math.sin(a + Math.PI / 3)];
});
const edges: [Pt, Pt][] = [];
for (let i = 0; i < 6; i++) edges.push([hex[i]!, hex[(i + 1) % 6]!]);
for (let i = 0; i < 3; i++) edges.push([tri[i]!, tri[(i + 1) % 3]!]);
// Spokes from the inner triangle to the hexagon corners, as on a d20's face.
for (let i = 0; i < 3; i++) {
  const t = tri[i]!;
  const near = hex.map((h, j) => [Math.hypot(h[0] - t[0], h[1] - t[1]), j] as const).sort((a, b) => a[0] - b[0]);
  for (const [, j] of near.slice(0, 3)) edges.push([t, hex[j]!]);
}

function sample(x: number, y: number): [number, number, number, number] {
  if (!inRoundedSquare(x, y, 40 * K)) return [0, 0, 0, 0];
  const onLine = edges.some(([a, b]) => distToSegment([x, y], a, b) <= 5 * K);
  return onLine ? [245, 230, 200, 255] : [122, 24, 32, 255];
}

export function drawIcon(): Uint8Array {
  const raw = new Uint8Array(SIZE * (SIZE * 4 + 1));
  for (let y = 0; y < SIZE; y++) {
    raw[y * (SIZE * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) {
      const acc = [0, 0, 0, 0];
      for (let sy = 0; sy < SS; sy++) {
        for (let sx = 0; sx < SS; sx++) {
          const s = sample(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
          // premultiplied accumulation keeps edges against transparency clean
          acc[0]! += s[0] * s[3];
          acc[1]! += s[1] * s[3];
          acc[2]! += s[2] * s[3];
          acc[3]! += s[3];
        }
      }
      const a = acc[3]!;
      const o = y * (SIZE * 4 + 1) + 1 + x * 4;
      raw[o] = a ? Math.round(acc[0]! / a) : 0;
      raw[o + 1] = a ? Math.round(acc[1]! / a) : 0;
      raw[o + 2] = a ? Math.round(acc[2]! / a) : 0;
      raw[o + 3] = Math.round(a / (SS * SS));
    }
  }
  return png(SIZE, SIZE, raw);
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  dv.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function png(w: number, h: number, raw: Uint8Array): Uint8Array {
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, w);
  dv.setUint32(4, h);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", new Uint8Array()),
  ];
  return Buffer.concat(parts);
}

if (import.meta.main) {
  const out = process.argv[2] ?? join(import.meta.dir, "..", "packaging", "icon.png");
  await Bun.write(out, drawIcon());
  process.stderr.write(`wrote ${out}\n`);
}
