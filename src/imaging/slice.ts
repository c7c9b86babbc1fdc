// The `slice` post step: one generated image (a strip, a grid of poses) cut into frames, each an
// output of its own. Two ways: a grid of equal cells, or cuts where the background shows through
// (transparent, or a key colour). Cells tile the image: a frame keeps its place in its cell, so
// frames trimmed afterwards stay aligned (their trim records say where each sat in its cell).
import { ImagingError } from './errors.js';
import { SLICE_LIMITS } from './limits.js';
import type { Rect, RawImage } from './raw.js';

export type SliceSpec =
  /** `columns` × `rows` equal cells, left to right then top to bottom; `count`: the first N only. */
  | { by: 'grid'; columns: number; rows: number; count?: number }
  /**
   * Cut at every run of at least `minGap` rows (then, within each band, columns) where every pixel
   * is the background: alpha ≤ tolerance for `transparent`; else within `tolerance` of the colour
   * on each channel, or fully transparent. `count`: the number of frames it must find.
   */
  | { by: 'gaps'; background: 'transparent' | `#${string}`; tolerance: number; minGap: number; count?: number };

/** The cells an image is cut into, in order: rows top to bottom, each left to right. */
export function sliceCells(image: RawImage, spec: SliceSpec): Rect[] {
  const cells = spec.by === 'grid' ? gridCells(image, spec) : gapCells(image, spec);
  if (spec.by === 'gaps' && spec.count !== undefined && cells.length !== spec.count)
    throw new ImagingError(
      'slice_failed',
      `the image (${image.width}×${image.height}) has ${cells.length} frame${cells.length === 1 ? '' : 's'} between its gaps, not the ${spec.count} slice.count asks for: look at it, then adjust tolerance or minGap, or use a grid`,
    );
  if (cells.length > SLICE_LIMITS.maxFrames)
    throw new ImagingError(
      'slice_failed',
      `the image cuts into ${cells.length} frames; the most is ${SLICE_LIMITS.maxFrames}: raise minGap`,
    );
  return cells;
}

/** Boundaries of `parts` nearly equal spans of `length` (each a whole number of pixels). */
const evenCuts = (length: number, parts: number): number[] =>
  Array.from({ length: parts + 1 }, (_, index) => Math.floor((index * length) / parts));

function gridCells(image: RawImage, spec: Extract<SliceSpec, { by: 'grid' }>): Rect[] {
  const { columns, rows } = spec;
  if (image.width < columns || image.height < rows)
    throw new ImagingError('slice_failed', `the image is ${image.width}×${image.height}: too small for a ${columns}×${rows} grid`);
  const xs = evenCuts(image.width, columns);
  const ys = evenCuts(image.height, rows);
  const cells: Rect[] = [];
  for (let row = 0; row < rows; row++)
    for (let column = 0; column < columns; column++)
      cells.push({ left: xs[column], top: ys[row], width: xs[column + 1] - xs[column], height: ys[row + 1] - ys[row] });
  return cells.slice(0, spec.count ?? cells.length);
}

function gapCells(image: RawImage, spec: Extract<SliceSpec, { by: 'gaps' }>): Rect[] {
  const isBackground = backgroundTest(spec);
  const { data, width, height } = image;
  const rowFilled = (y: number, from: number, to: number): boolean => {
    for (let x = from; x < to; x++) if (!isBackground(data, (y * width + x) * 4)) return true;
    return false;
  };
  const bands = spans(height, spec.minGap, (y) => rowFilled(y, 0, width));
  if (!bands.length)
    throw new ImagingError(
      'slice_failed',
      `every pixel of the image (${width}×${height}) is the background (${spec.background}): nothing to cut`,
    );
  const cells: Rect[] = [];
  for (const band of bands) {
    const columnFilled = (x: number): boolean => {
      for (let y = band.start; y < band.end; y++) if (!isBackground(data, (y * width + x) * 4)) return true;
      return false;
    };
    for (const span of spans(width, spec.minGap, columnFilled))
      cells.push({ left: span.start, top: band.start, width: span.end - span.start, height: band.end - band.start });
  }
  return cells;
}

/**
 * The spans [start, end) that `length` lines split into, cut in the middle of every run of at
 * least `minGap` empty lines between filled ones; the first starts at 0 and the last ends at
 * `length`, so the spans tile it. None when no line is filled.
 */
function spans(length: number, minGap: number, filled: (line: number) => boolean): { start: number; end: number }[] {
  const cuts: number[] = [];
  let seenFilled = false;
  let gapStart = -1;
  for (let line = 0; line < length; line++) {
    if (!filled(line)) {
      if (gapStart < 0) gapStart = line;
      continue;
    }
    if (seenFilled && gapStart >= 0 && line - gapStart >= minGap) cuts.push(gapStart + Math.floor((line - gapStart) / 2));
    seenFilled = true;
    gapStart = -1;
  }
  if (!seenFilled) return [];
  const bounds = [0, ...cuts, length];
  return bounds.slice(1).map((end, index) => ({ start: bounds[index], end }));
}

/** Whether the RGBA pixel at `offset` is the background the spec names. */
function backgroundTest(spec: Extract<SliceSpec, { by: 'gaps' }>): (data: Buffer, offset: number) => boolean {
  const { tolerance } = spec;
  if (spec.background === 'transparent') return (data, offset) => data[offset + 3] <= tolerance;
  const key = Number.parseInt(spec.background.slice(1), 16);
  const [r, g, b] = [(key >> 16) & 255, (key >> 8) & 255, key & 255];
  return (data, offset) =>
    data[offset + 3] === 0 ||
    (Math.abs(data[offset] - r) <= tolerance && Math.abs(data[offset + 1] - g) <= tolerance && Math.abs(data[offset + 2] - b) <= tolerance);
}
