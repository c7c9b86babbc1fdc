// A MaxRects bin packer (Jukka Jylänki, "A Thousand Ways to Pack the Bin", best short side fit), no
// rotation. Deterministic: the same sizes in the same order give the same places, every tie broken
// by position. Small enough to own, where the maxrects-packer package's latest release does not
// import on Node 20 and its padding and bin growth are not the atlas's.

export interface Size {
  width: number;
  height: number;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The top-left corner of each size in a width × height bin, in the order given; undefined when one does not fit. */
export function packMaxRects(sizes: readonly Size[], width: number, height: number): { x: number; y: number }[] | undefined {
  const bin = new MaxRectsBin(width, height);
  const places: { x: number; y: number }[] = [];
  for (const size of sizes) {
    const place = bin.insert(size);
    if (!place) return undefined;
    places.push(place);
  }
  return places;
}

/** One bin being filled: each insert takes the free box of best short side fit, or says it does not fit. */
export class MaxRectsBin {
  private free: Box[];
  /** The widest and the tallest free box: a size past either fits nowhere (a full page answers at once). */
  private widest: number;
  private tallest: number;

  constructor(width: number, height: number) {
    this.free = [{ x: 0, y: 0, width, height }];
    [this.widest, this.tallest] = [width, height];
  }

  /** Places `size` and returns its top-left corner; undefined (the bin unchanged) when it does not fit. */
  insert(size: Size): { x: number; y: number } | undefined {
    if (size.width > this.widest || size.height > this.tallest) return undefined;
    let best: Box | undefined;
    let bestShort = Infinity;
    let bestLong = Infinity;
    for (const box of this.free) {
      if (size.width > box.width || size.height > box.height) continue;
      const short = Math.min(box.width - size.width, box.height - size.height);
      const long = Math.max(box.width - size.width, box.height - size.height);
      const better =
        short < bestShort ||
        (short === bestShort &&
          (long < bestLong || (long === bestLong && best !== undefined && (box.y < best.y || (box.y === best.y && box.x < best.x)))));
      if (better) [best, bestShort, bestLong] = [box, short, long];
    }
    if (!best) return undefined;
    const placed: Box = { x: best.x, y: best.y, width: size.width, height: size.height };
    const kept = this.free.filter((box) => !overlaps(box, placed));
    this.free = [
      ...kept,
      ...prune(
        this.free.filter((box) => overlaps(box, placed)).flatMap((box) => split(box, placed)),
        kept,
      ),
    ];
    this.widest = Math.max(0, ...this.free.map((box) => box.width));
    this.tallest = Math.max(0, ...this.free.map((box) => box.height));
    return { x: placed.x, y: placed.y };
  }
}

/** The free boxes left of `box` once `used` is taken from it: up to four overlapping maximal boxes. */
function split(box: Box, used: Box): Box[] {
  const parts: Box[] = [];
  if (used.x > box.x) parts.push({ x: box.x, y: box.y, width: used.x - box.x, height: box.height });
  if (used.x + used.width < box.x + box.width) {
    parts.push({ x: used.x + used.width, y: box.y, width: box.x + box.width - used.x - used.width, height: box.height });
  }
  if (used.y > box.y) parts.push({ x: box.x, y: box.y, width: box.width, height: used.y - box.y });
  if (used.y + used.height < box.y + box.height) {
    parts.push({ x: box.x, y: used.y + used.height, width: box.width, height: box.y + box.height - used.y - used.height });
  }
  return parts;
}

/**
 * The new boxes that lie inside no other box (of two equal ones, the first). A kept box is inside no
 * new one: each new box lies inside a box that held none of the kept ones.
 */
function prune(added: Box[], kept: readonly Box[]): Box[] {
  return added.filter(
    (box, index) =>
      !kept.some((other) => contains(other, box)) &&
      added.every((other, otherIndex) => otherIndex === index || !contains(other, box) || (contains(box, other) && otherIndex > index)),
  );
}

const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

const contains = (outer: Box, inner: Box): boolean =>
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;
