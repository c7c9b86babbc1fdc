// The one check of an atlas page's pixels, for every atlas test: each frame of the data is its
// source's pixels at the rectangle named, the extrusion repeats its edges, frames stay `padding`
// apart, and every other pixel is transparent.
import { expect } from 'vitest';
import type { TexturePackerJsonHash } from '../../src/imaging/atlas.js';
import { region, type Pixels } from './pixels.js';

type Rect = { x: number; y: number; w: number; h: number };
const overlap = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const grow = (r: Rect, by: number): Rect => ({ x: r.x - by, y: r.y - by, w: r.w + 2 * by, h: r.h + 2 * by });

/** Every frame of `data` is its source's pixels; the extrusion repeats the edges; every other pixel is transparent. */
export function checkAtlas(atlas: Pixels, data: TexturePackerJsonHash, sources: Map<string, Pixels>, padding: number, extrude: number) {
  const covered = new Uint8Array(atlas.width * atlas.height);
  const wrong: string[] = [];
  for (const [name, entry] of Object.entries(data.frames)) {
    const { x, y, w, h } = entry.frame;
    const source = sources.get(name)!;
    expect([w, h], name).toEqual([source.width, source.height]);
    if (!region(atlas, x, y, w, h).equals(source.data)) wrong.push(`${name} at ${x},${y}`);
    for (let dy = -extrude; dy < h + extrude; dy++) {
      for (let dx = -extrude; dx < w + extrude; dx++) {
        const sx = Math.min(w - 1, Math.max(0, dx));
        const sy = Math.min(h - 1, Math.max(0, dy));
        const want = source.data.readUInt32BE((sy * w + sx) * 4);
        if (atlas.data.readUInt32BE(((y + dy) * atlas.width + x + dx) * 4) !== want) wrong.push(`${name} extruded at ${dx},${dy}`);
        covered[(y + dy) * atlas.width + x + dx] = 1;
      }
    }
  }
  // Padding: extruded frames stay `padding` apart, and what no frame covers is transparent.
  const rects = Object.entries(data.frames).map(([name, entry]) => [name, grow(entry.frame, extrude)] as const);
  for (const [i, [nameA, a]] of rects.entries()) {
    for (const [nameB, b] of rects.slice(i + 1))
      if (overlap(grow(a, padding / 2), grow(b, padding / 2))) wrong.push(`${nameA} and ${nameB} closer than ${padding}`);
  }
  for (let index = 0; index < covered.length; index++) {
    if (!covered[index] && atlas.data.readUInt32BE(index * 4) !== 0)
      wrong.push(`pixel ${index % atlas.width},${Math.floor(index / atlas.width)} not transparent`);
  }
  expect(wrong.slice(0, 10)).toEqual([]);
}
