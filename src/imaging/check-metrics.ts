// The figures `assetgen check` adds to a take's numbers (./take-metrics.ts, the one place for alpha,
// drawn area, fill and colours): how visibly a tile's edges fail to meet when it repeats, and a
// perceptual hash to tell which member of a group looks unlike the others (docs/check.md). Pure
// arithmetic on decoded pixels: no sharp, no files.
import type { RawImage } from './raw.js';
import { HASH_BITS } from './limits.js';

/** Bits in a perceptual hash: a 9×8 thumbnail gives 8 comparisons on each of its 8 rows. */
export { HASH_BITS };

/**
 * How visible the seam is where a tile meets its own copy, in 0–255 units: for each pair of pixels
 * that touch when the tile repeats (column 0 with the last column, row 0 with the last row), the
 * largest difference of R, G, B or A; averaged along each edge; the larger of the two averages,
 * to 2 decimals. 0: the edges match exactly; a 1-pixel image wraps onto itself (0).
 */
export function seamScore(image: RawImage): number {
  const { data, width, height } = image;
  const difference = (a: number, b: number): number =>
    Math.max(
      Math.abs(data[a] - data[b]),
      Math.abs(data[a + 1] - data[b + 1]),
      Math.abs(data[a + 2] - data[b + 2]),
      Math.abs(data[a + 3] - data[b + 3]),
    );
  let across = 0;
  for (let y = 0; y < height; y++) across += difference(y * width * 4, (y * width + width - 1) * 4);
  let down = 0;
  const lastRow = (height - 1) * width * 4;
  for (let x = 0; x < width; x++) down += difference(x * 4, lastRow + x * 4);
  return Math.round(Math.max(across / height, down / width) * 100) / 100;
}

const THUMB_WIDTH = 9;
const THUMB_HEIGHT = 8;
/** Transparent pixels are seen over this grey, so a sprite's outline counts whatever its colours. */
const BACKGROUND_GREY = 128;

/**
 * A difference hash (dHash) of the image: its grey levels (over a mid grey where transparent)
 * averaged into a 9×8 thumbnail, each bit saying whether a cell is brighter than its right
 * neighbour. Images that look alike (recoloured, slightly shifted) differ in a few bits; a
 * different drawing in about half. 16 hex digits.
 */
export function perceptualHash(image: RawImage): string {
  const cells = greyThumbnail(image);
  let hex = '';
  for (let y = 0; y < THUMB_HEIGHT; y++) {
    let byte = 0;
    for (let x = 0; x < THUMB_WIDTH - 1; x++) byte = (byte << 1) | (cells[y * THUMB_WIDTH + x] > cells[y * THUMB_WIDTH + x + 1] ? 1 : 0);
    hex += byte.toString(16).padStart(2, '0');
  }
  return hex;
}

/** The mean grey level of each cell of a THUMB_WIDTH × THUMB_HEIGHT grid laid over the image (each cell at least one pixel). */
function greyThumbnail(image: RawImage): Float64Array {
  const { data, width, height } = image;
  const cells = new Float64Array(THUMB_WIDTH * THUMB_HEIGHT);
  const span = (index: number, cellsAcross: number, size: number): [number, number] => {
    const start = Math.min(size - 1, Math.floor((index * size) / cellsAcross));
    return [start, Math.max(start + 1, Math.floor(((index + 1) * size) / cellsAcross))];
  };
  for (let cy = 0; cy < THUMB_HEIGHT; cy++) {
    const [top, bottom] = span(cy, THUMB_HEIGHT, height);
    for (let cx = 0; cx < THUMB_WIDTH; cx++) {
      const [left, right] = span(cx, THUMB_WIDTH, width);
      let sum = 0;
      for (let y = top; y < bottom; y++) {
        for (let x = left; x < right; x++) {
          const at = (y * width + x) * 4;
          const alpha = data[at + 3] / 255;
          const grey = 0.299 * data[at] + 0.587 * data[at + 1] + 0.114 * data[at + 2];
          sum += grey * alpha + BACKGROUND_GREY * (1 - alpha);
        }
      }
      cells[cy * THUMB_WIDTH + cx] = sum / ((bottom - top) * (right - left));
    }
  }
  return cells;
}

/** How many bits two hashes of perceptualHash differ in (0 to HASH_BITS). */
export function hammingDistance(a: string, b: string): number {
  let bits = 0;
  for (let i = 0; i < a.length; i += 2) {
    let x = parseInt(a.slice(i, i + 2), 16) ^ parseInt(b.slice(i, i + 2), 16);
    for (; x; x &= x - 1) bits++;
  }
  return bits;
}
