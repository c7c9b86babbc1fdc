// The pictures behind the mock's media, made in code: a seeded PRNG, a five-colour palette and a
// 16×16 grid of palette indices (a sprite, a tile or an icon) that the PNG and the GIF both draw.
// Deterministic: the same seed and variation, the same picture.
import { createHash } from 'node:crypto';

export type Rgb = readonly [number, number, number];

/** A small deterministic PRNG (mulberry32) seeded from a hash of the inputs. */
export function seededRandom(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): number => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** Five colours: background, shadow, base, highlight, outline — hue picked by the prompt, turned by `hueTurn` degrees. */
export function palette(random: () => number, hueTurn = 0): Rgb[] {
  const hue = (random() * 360 + hueTurn) % 360;
  const accent = (hue + 150 + random() * 60) % 360;
  return [hsl((hue + 200) % 360, 0.25, 0.12), hsl(hue, 0.55, 0.3), hsl(hue, 0.65, 0.5), hsl(accent, 0.8, 0.7), [12, 10, 16]];
}

/** A 16×16 grid of palette indices: a mirrored sprite, a seamless tile, or an icon on a disc. */
export function pixelGrid(kind: string, random: () => number): number[][] {
  const size = 16;
  const grid = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  if (kind === 'tile') {
    // Bricks with per-brick shading and moss speckles; wraps at the edges so tiles repeat.
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const row = Math.floor(y / 4);
        const shifted = (x + (row % 2) * 4) % size;
        const mortar = y % 4 === 3 || shifted % 8 === 7;
        grid[y][x] = mortar ? 1 : random() < 0.12 ? 3 : 2;
      }
    }
    return grid;
  }
  // Mirrored sprite: fill the left half at random with a body-shaped density, mirror it, outline it.
  for (let y = 2; y < size - 2; y++) {
    for (let x = 2; x < size / 2; x++) {
      const density = 0.35 + 0.5 * (x / (size / 2)) - (0.15 * Math.abs(y - size / 2)) / (size / 2);
      if (random() < density) {
        const shade = random() < 0.2 ? 3 : random() < 0.5 ? 2 : 1;
        grid[y][x] = shade;
        grid[y][size - 1 - x] = shade;
      }
    }
  }
  const outlined = grid.map((row) => [...row]);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (grid[y][x] !== 0) continue;
      const touches = [
        [0, 1],
        [1, 0],
        [0, -1],
        [-1, 0],
      ].some(([dx, dy]) => (grid[y + dy]?.[x + dx] ?? 0) > 0);
      if (touches) outlined[y][x] = 4;
    }
  }
  if (kind === 'icon') {
    // A disc behind the icon, in the shadow colour.
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const inside = (x - 7.5) ** 2 + (y - 7.5) ** 2 < 7.6 ** 2;
        if (outlined[y][x] === 0 && inside) outlined[y][x] = 1;
      }
    }
  }
  return outlined;
}

/** The golden angle: variations 1, 2, 3 … turn the hue by multiples of it, which stay far apart on the wheel. */
const GOLDEN_ANGLE = 137.508;

/**
 * The picture of `seed`, variation `variation`: as a model draws a new picture at each paid call,
 * each variation has its own hue (turned by a multiple of the golden angle, so no two of the first
 * sixteen share a hue) and its own shape. Variation 0 is the picture the seed always drew.
 */
export function picture(seed: string, kind: string, variation = 0): { colours: Rgb[]; grid: number[][] } {
  const random = seededRandom(seed);
  const colours = palette(random, variation * GOLDEN_ANGLE);
  const grid = pixelGrid(kind, variation === 0 ? random : seededRandom(`${seed}\u0000${variation}`));
  return { colours, grid };
}

export function agentStyle(agentId: string): string {
  if (/tile|terrain|texture/.test(agentId)) return 'tile';
  if (/icon/.test(agentId)) return 'icon';
  return 'sprite';
}
