// The figures `assetgen check` adds to a take's numbers (./take-metrics.ts, the one place for alpha,
// drawn area, fill and colours): how visibly a tile's edges fail to meet when it repeats, and a
// perceptual hash to tell which member of a group looks unlike the others (docs/check.md). Pure
// arithmetic on decoded pixels: no sharp, no files.
import type { RawImage } from './raw.js';
import { HASH_BITS } from './limits.js';

/** Bits in a perceptual hash: a 9×8 thumbnail gives 8 comparisons on each of its 8 rows. */
export { HASH_BITS };

/**
 * Neighbouring lines inside a tile that differ by this much or less (the mean of their pixels'
 * differences, 0–255) count as calm: the seam score is then the wrap's excess in levels; past it,
 * the excess is scaled by SEAM_CALM / that difference (the texture's own contrast).
 */
export const SEAM_CALM = 8;

/**
 * How visible the seam is where a tile meets its own copy, measured against the tile's own
 * interior (docs/check.md "Seam score"). Two neighbouring lines (columns x and x + 1, or rows) differ
 * by the mean, along them, of the largest difference of R, G, B or A between the pixels side by
 * side; the wrap is the last line beside the first. For each direction: E = the wrap's difference
 * less the largest difference of two neighbouring lines inside (0 when not more), M that largest;
 * the figure is E × SEAM_CALM / max(M, SEAM_CALM): E itself (in levels, 0–255) for a tile whose
 * lines inside differ by SEAM_CALM or less, and relative to the tile's contrast past it. The larger
 * of the two directions, to 2 decimals; 0 to 255.
 *
 * So it does not depend on where a repeating pattern is cut: an edge on a mortar line wraps onto
 * bricks as the tile's other mortar lines meet theirs (about 0), where a gradient, or a picture whose
 * edges were never made to meet, jumps at the wrap as nowhere inside. Pixels unrelated to their
 * neighbours (white noise) differ as much inside as across the wrap: no seam (0). Memory: one sum a
 * column and one row at a time. A 1-pixel side wraps onto itself (0).
 */
export function seamScore(image: RawImage): number {
  const { data, width, height } = image;
  const rowBytes = width * 4;
  // columns[x]: the sum over the rows of the difference between columns x and x + 1; columns[width - 1]:
  // between the last column and the first (the wrap). Whole numbers (at most 255 × 16,384): exact.
  const columns = new Float64Array(width);
  let rowsInside = 0;
  let rowsWrap = 0;
  for (let y = 0; y < height; y++) {
    const at = y * rowBytes;
    for (let x = 0; x < width - 1; x++) columns[x] += pixelDifference(data, at + x * 4, at + x * 4 + 4);
    columns[width - 1] += pixelDifference(data, at + rowBytes - 4, at);
    // This row against the next one; the last row against the first.
    const below = y + 1 < height ? at + rowBytes : 0;
    let sum = 0;
    for (let offset = 0; offset < rowBytes; offset += 4) sum += pixelDifference(data, at + offset, below + offset);
    if (y + 1 < height) rowsInside = Math.max(rowsInside, sum);
    else rowsWrap = sum;
  }
  let columnsInside = 0;
  for (let x = 0; x < width - 1; x++) columnsInside = Math.max(columnsInside, columns[x]);
  const score = Math.max(wrapExcess(columns[width - 1], columnsInside, height), wrapExcess(rowsWrap, rowsInside, width));
  return Math.round(score * 100) / 100;
}

/**
 * One direction's figure from sums over lines of `length` pixels: the wrap's excess over the largest
 * inside, × SEAM_CALM / max(that largest, SEAM_CALM), as a mean (in whole numbers until one division).
 */
function wrapExcess(wrap: number, inside: number, length: number): number {
  if (wrap <= inside) return 0;
  // (wrap − inside) / length × SEAM_CALM / max(inside / length, SEAM_CALM), with one division.
  return ((wrap - inside) * SEAM_CALM) / Math.max(inside, SEAM_CALM * length);
}

/** The largest difference of R, G, B or A between the pixels at byte offsets `a` and `b` (0–255). */
function pixelDifference(data: Buffer, a: number, b: number): number {
  const red = Math.abs(data[a] - data[b]);
  const green = Math.abs(data[a + 1] - data[b + 1]);
  const blue = Math.abs(data[a + 2] - data[b + 2]);
  const alpha = Math.abs(data[a + 3] - data[b + 3]);
  return Math.max(red, green, blue, alpha);
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
