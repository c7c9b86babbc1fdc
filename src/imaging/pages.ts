// Where each frame of an atlas goes: sizes in, pages of places out, no pixels. A set that fits one
// page is laid out exactly as it always was (one power-of-two page, the smallest that holds it); a
// set that does not, when pages are allowed, is laid out on several pages of at most maxSize a side.
// Deterministic: every order and every tie is decided by size, then name.
import { ImagingError } from './errors.js';
import { IMAGE_LIMITS } from './limits.js';
import { MaxRectsBin, packMaxRects, type Size } from './maxrects.js';

export interface LayoutFrame {
  name: string;
  /** The frame's own pixels (trimmed, when trimming), without extrusion or padding. */
  width: number;
  height: number;
}

export interface LayoutOptions {
  padding: number;
  extrude: number;
  maxSize: number;
  /** Several pages when the frames do not fit one; otherwise they are an error, as for one atlas. */
  pages: boolean;
}

export interface PageLayout {
  width: number;
  height: number;
  /** Each frame on the page: its index in the frames given, and its pixels' top-left corner (inside the extrusion). */
  places: { frame: number; x: number; y: number }[];
}

/** Code-unit order: the same in every locale. */
export const compareNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

type Order = (a: LayoutFrame, b: LayoutFrame) => number;

const longestSide = (frame: LayoutFrame): number => Math.max(frame.width, frame.height);
const area = (frame: LayoutFrame): number => frame.width * frame.height;

/** One page: largest first (the longest side, then the area) packs tight; the name decides between equal sizes. */
const ONE_PAGE_ORDER: Order = (a, b) => longestSide(b) - longestSide(a) || area(b) - area(a) || compareNames(a.name, b.name);

/**
 * Several pages: each of these orders is tried and the layout with the least page area kept (then
 * the fewest pages, then the first order listed). No one order wins on every set: tall frames pack
 * best by height, mixed ones by longest side or area.
 */
const PAGE_ORDERS: Order[] = [
  ONE_PAGE_ORDER,
  (a, b) => area(b) - area(a) || longestSide(b) - longestSide(a) || compareNames(a.name, b.name),
  (a, b) => b.height - a.height || b.width - a.width || compareNames(a.name, b.name),
  (a, b) => b.width - a.width || b.height - a.height || compareNames(a.name, b.name),
  (a, b) => b.width + b.height - (a.width + a.height) || longestSide(b) - longestSide(a) || compareNames(a.name, b.name),
];

/** The pages and places of `frames`; an ImagingError `atlas_too_small` when they do not fit. */
export function layoutAtlas(frames: readonly LayoutFrame[], options: LayoutOptions): PageLayout[] {
  const one = layoutOnePage(frames, options);
  if (one) return [one];
  const { extrude, maxSize } = options;
  const tooLarge = frames.find((frame) => longestSide(frame) + 2 * extrude > maxSize);
  if (!options.pages || tooLarge) throw tooSmall(frames, options, tooLarge);
  let best: PageLayout[] | undefined;
  let bestArea = Infinity;
  for (const order of PAGE_ORDERS) {
    const pages = layoutPages(frames, options, order);
    const pagesArea = pages.reduce((sum, page) => sum + page.width * page.height, 0);
    if (pagesArea < bestArea || (pagesArea === bestArea && pages.length < best!.length)) [best, bestArea] = [pages, pagesArea];
  }
  return best!;
}

/** Frame pixels ÷ page pixels: how much of the pages the frames fill (padding and extrusion count as empty). */
export function occupancy(frames: readonly LayoutFrame[], pages: readonly Pick<PageLayout, 'width' | 'height'>[]): number {
  const used = frames.reduce((sum, frame) => sum + area(frame), 0);
  return used / pages.reduce((sum, page) => sum + page.width * page.height, 0);
}

/** The space a frame takes in a bin: its pixels, its extrusion, and the padding on its right and bottom. */
const cellOf = (frame: LayoutFrame, { padding, extrude }: LayoutOptions): Size => ({
  width: frame.width + 2 * extrude + padding,
  height: frame.height + 2 * extrude + padding,
});

function layoutOnePage(frames: readonly LayoutFrame[], options: LayoutOptions): PageLayout | undefined {
  const order = frames.map((_, index) => index).sort((a, b) => ONE_PAGE_ORDER(frames[a], frames[b]));
  return smallestPage(order, frames, options);
}

/**
 * The smallest power-of-two page (by area; then the squarer, then the wider), each side at most
 * maxSize, that holds the frames packed in the order given; undefined when none does.
 */
function smallestPage(order: readonly number[], frames: readonly LayoutFrame[], options: LayoutOptions): PageLayout | undefined {
  const { padding, extrude, maxSize } = options;
  const cells = order.map((index) => cellOf(frames[index], options));
  // Each cell carries its padding on its right and bottom; the bin gets the same, cut off at the end.
  const widest = Math.max(...cells.map((cell) => cell.width)) - padding;
  const tallest = Math.max(...cells.map((cell) => cell.height)) - padding;
  const cellsArea = cells.reduce((sum, cell) => sum + cell.width * cell.height, 0);
  const sides: number[] = [];
  for (let side = 1; side <= maxSize; side *= 2) sides.push(side);
  const candidates = sides
    .flatMap((width) => sides.map((height) => ({ width, height })))
    .filter(
      ({ width, height }) =>
        width >= widest &&
        height >= tallest &&
        (width + padding) * (height + padding) >= cellsArea &&
        width * height <= IMAGE_LIMITS.maxPixels,
    )
    .sort(
      (a, b) =>
        a.width * a.height - b.width * b.height ||
        Math.abs(Math.log2(a.width / a.height)) - Math.abs(Math.log2(b.width / b.height)) ||
        b.width - a.width,
    );
  for (const { width, height } of candidates) {
    const places = packMaxRects(cells, width + padding, height + padding);
    if (places) {
      return {
        width,
        height,
        places: order.map((frame, index) => ({ frame, x: places[index].x + extrude, y: places[index].y + extrude })),
      };
    }
  }
  return undefined;
}

/**
 * Several pages in one order: each frame goes on the first page with room for it (a new full-size
 * page when none has), then each page shrinks to the smallest power-of-two page its frames fit.
 */
function layoutPages(frames: readonly LayoutFrame[], options: LayoutOptions, order: Order): PageLayout[] {
  const { padding, maxSize } = options;
  const side = Math.min(maxSize, Math.floor(Math.sqrt(IMAGE_LIMITS.maxPixels)));
  const bins: { bin: MaxRectsBin; frames: number[] }[] = [];
  const sorted = frames.map((_, index) => index).sort((a, b) => order(frames[a], frames[b]));
  for (const index of sorted) {
    const cell = cellOf(frames[index], options);
    let placed = bins.find((page) => page.bin.insert(cell));
    if (!placed) {
      placed = { bin: new MaxRectsBin(side + padding, side + padding), frames: [] };
      bins.push(placed);
      // A frame that fits no empty page was refused before (tooLarge).
      placed.bin.insert(cell);
    }
    placed.frames.push(index);
  }
  // A page's frames packed alone in the same order, in a bin of the same size, land where they did:
  // the smallest page is found among sizes up to the full one, so it always exists.
  return bins.map((page) => smallestPage(page.frames, frames, options)!);
}

function tooSmall(frames: readonly LayoutFrame[], options: LayoutOptions, tooLarge: LayoutFrame | undefined): ImagingError {
  const { extrude, maxSize } = options;
  const cellsArea = frames.reduce((sum, frame) => {
    const cell = cellOf(frame, options);
    return sum + cell.width * cell.height;
  }, 0);
  const why = tooLarge
    ? `frame ${JSON.stringify(tooLarge.name)} is ${tooLarge.width}×${tooLarge.height}, with extrude ${extrude}`
    : `${frames.length} frames take ${cellsArea.toLocaleString('en-US')} pixels with padding and extrude`;
  return new ImagingError(
    'atlas_too_small',
    `the frames do not fit in a ${maxSize}×${maxSize} atlas (${why}): raise maxSize, lower padding or extrude, or split the sheet`,
  );
}
