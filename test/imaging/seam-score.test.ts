// The seam score (src/imaging/check-metrics.ts, docs/check.md "Seam score") on synthetic tiles: a
// repeating pattern scores about the same, low, wherever it is cut — on a mortar line, mid-brick, in
// a smooth texture — and a tile whose edges do not meet (a gradient, a random picture that was never
// made to wrap, a texture with a brightness drift) scores high. Pure arithmetic on pixels.
import { describe, expect, it } from 'vitest';
import { SEAM_CALM, seamScore } from '../../src/imaging/check-metrics.js';
import { seededRandom } from '../../src/mock/media/pixel-art.js';
import { makePixels, type Pixels, type RGBA } from './pixels.js';

const clamp = (value: number): number => Math.max(0, Math.min(255, Math.round(value)));

/** The same infinite plane cut `dx`, `dy` pixels over: identical when repeated. */
function rolled(tile: Pixels, dx: number, dy: number): Pixels {
  const { width, height } = tile;
  const data = Buffer.alloc(tile.data.length);
  for (let y = 0; y < height; y++) {
    const from = ((y + dy) % height) * width * 4;
    const shift = (dx % width) * 4;
    tile.data.copy(data, y * width * 4, from + shift, from + width * 4);
    tile.data.copy(data, y * width * 4 + width * 4 - shift, from, from + shift);
  }
  return { data, width, height };
}

/**
 * Bricks drawn as pixel art (a 16×16 grid, each cell `scale` pixels): mortar rows every 4 cells,
 * mortar columns every 8 cells shifted by 4 on odd courses, bricks with seeded moss — the kind of
 * tile the mock's tile-smith draws, and seamless by construction (every index wraps).
 */
function bricks(seed: string, scale = 8): Pixels {
  const random = seededRandom(seed);
  const [mortar, brick, moss]: RGBA[] = [
    [34, 119, 38, 255],
    [45, 210, 52, 255],
    [213, 117, 240, 255],
  ];
  const cells: RGBA[][] = [];
  for (let y = 0; y < 16; y++) {
    cells.push([]);
    for (let x = 0; x < 16; x++) {
      const shifted = (x + (Math.floor(y / 4) % 2) * 4) % 16;
      cells[y].push(y % 4 === 3 || shifted % 8 === 7 ? mortar : random() < 0.12 ? moss : brick);
    }
  }
  return makePixels(16 * scale, 16 * scale, (x, y) => cells[Math.floor(y / scale)][Math.floor(x / scale)]);
}

/** Waves at random phases and amplitudes; whole numbers of periods across the tile (`offset` 0) wrap exactly, others do not. */
function waves(seed: string, size: number, options: { offset?: number; drift?: number; contrast?: number } = {}): Pixels {
  const random = seededRandom(seed);
  const { offset = 0, drift = 0, contrast = 1 } = options;
  const parts = Array.from({ length: 24 }, () => ({
    fx: Math.floor(random() * 9) - 4 + offset,
    fy: Math.floor(random() * 9) - 4 + offset * 1.6,
    phase: random() * 2 * Math.PI,
    amplitude: random() * 20 * contrast,
  }));
  return makePixels(size, size, (x, y) => {
    let level = 128 + drift * (x / size - 0.5);
    for (const part of parts) level += part.amplitude * Math.sin(2 * Math.PI * ((part.fx * x) / size + (part.fy * y) / size) + part.phase);
    return [clamp(level), clamp(level * 0.8 + 20), clamp(255 - level), 255];
  });
}

/** The scores of `tile` cut at each of `offsets` both ways. */
const cuts = (tile: Pixels, offsets: number[]): number[] => offsets.flatMap((dx) => offsets.map((dy) => seamScore(rolled(tile, dx, dy))));

describe('seamScore', () => {
  it('a seamless pattern scores about the same, low, wherever it is cut: on a mortar line, mid-brick, between cells', () => {
    for (const seed of ['mossy stone floor', 'castle wall', 'cellar']) {
      const tile = bricks(seed);
      // Every cell boundary (the wrap then lands on a mortar line, or beside one) and cuts inside cells.
      const scores = cuts(tile, [0, 5, 8, 24, 29, 31, 56, 64, 101, 120]);
      for (const score of scores) expect(score, seed).toBeLessThanOrEqual(4);
      // The old figure (the edges' own difference) read up to ~90 on these cuts and 0 on others.
      expect(Math.max(...scores) - Math.min(...scores)).toBeLessThanOrEqual(4);
    }
    // A smooth texture that wraps, and the same with pixel noise: 0 at every cut.
    const smooth = waves('moss', 96);
    const grain = seededRandom('grain');
    const grainy = makePixels(96, 96, (x, y) => {
      const at = (y * 96 + x) * 4;
      const noise = Math.floor(grain() * 9) - 4;
      return [clamp(smooth.data[at] + noise), clamp(smooth.data[at + 1] + noise), clamp(smooth.data[at + 2] + noise), 255];
    });
    for (const tile of [smooth, grainy]) for (const score of cuts(tile, [0, 1, 17, 48, 95])) expect(score).toBe(0);
  });

  it('a gradient from left to right, or a random picture never made to wrap, scores high', () => {
    // 0 to 255 over 64 columns: neighbours differ by 4 or 5, the wrap by 255.
    const gradient = makePixels(64, 64, (x): RGBA => [clamp((x * 255) / 63), 100, 100, 255]);
    expect(seamScore(gradient)).toBe(250);
    expect(seamScore(rolled(gradient, 0, 17))).toBe(250);
    // The same waves at frequencies that do not divide the tile: smooth inside, a jump at the wrap.
    const random = waves('moss', 96, { offset: 0.37 });
    expect(seamScore(random)).toBeGreaterThan(40);
    // Its contrast a fifth: the seam still far above a limit of 8.
    expect(seamScore(waves('moss', 96, { offset: 0.37, contrast: 0.2 }))).toBeGreaterThan(8);
    // A seamless texture whose brightness drifts by 30 levels from left to right.
    expect(seamScore(waves('moss', 96, { drift: 30 }))).toBeGreaterThan(15);
  });

  it('is the wrap’s excess over the most different neighbouring lines inside, scaled past SEAM_CALM levels', () => {
    // Bands of 8 columns, grey 100/108/116/124: inside at most 8 apart, the wrap 24: 24 − 8.
    const bands = makePixels(32, 8, (x): RGBA => [100 + 8 * Math.floor(x / 8), 100, 100, 255]);
    expect(SEAM_CALM).toBe(8);
    expect(seamScore(bands)).toBe(16);
    // Steps of 40 (contrast past SEAM_CALM): inside 40, the wrap 120: (120 − 40) × 8 / 40.
    const steps = makePixels(32, 8, (x): RGBA => [40 + 40 * Math.floor(x / 8), 100, 100, 255]);
    expect(seamScore(steps)).toBe(16);
    // The same down the rows, and alpha counts as a channel.
    const rows = makePixels(8, 32, (_x, y): RGBA => [0, 0, 0, 100 + 8 * Math.floor(y / 8)]);
    expect(seamScore(rows)).toBe(16);
    // Edges that differ, but no more than lines inside do: no seam (the old figure read 40 here).
    const framed = makePixels(
      32,
      32,
      (x, y): RGBA => (x === 0 ? [100, 100, 100, 255] : x === 31 ? [140, 140, 140, 255] : [20, 80 + (y % 2), 30, 255]),
    );
    expect(seamScore(framed)).toBe(0);
    // A flat tile, a single pixel, a single row: nothing to wrap onto but themselves.
    expect(seamScore(makePixels(5, 5, (): RGBA => [9, 9, 9, 255]))).toBe(0);
    expect(seamScore(makePixels(1, 1, (): RGBA => [9, 9, 9, 255]))).toBe(0);
    expect(seamScore(makePixels(4, 1, (x): RGBA => [x * 5, 0, 0, 255]))).toBe(10);
  });

  it('white noise, each pixel unrelated to its neighbours, differs as much inside as across the wrap: no seam', () => {
    const random = seededRandom('noise');
    const noise = makePixels(64, 64, (): RGBA => [Math.floor(random() * 256), Math.floor(random() * 256), Math.floor(random() * 256), 255]);
    expect(seamScore(noise)).toBeLessThanOrEqual(2);
  });
});
