// Clean edges for engines (docs/imaging.md "Clean edges"): `key` turns a flat background colour into
// alpha with a soft edge, `bleed` gives transparent pixels the colour of their nearest visible
// neighbour (so a linearly filtered edge fades to the sprite's colour, not to black or the key), and
// `extrude` repeats a single image's edge pixels outward. All work in place on RGBA pixels where they
// can (extrude grows the canvas, so it makes one new image), in integers or exactly rounded doubles:
// the same pixels in give the same pixels out on every machine.
import { blank, type RawImage } from './raw.js';

/** `key` with every default filled in: the colour as `#rrggbb` (lower case), distances 0-255. */
export interface KeySpec {
  color: string;
  /** A pixel at most this far from the key colour becomes fully transparent. */
  tolerance: number;
  /** The band beyond `tolerance` over which alpha ramps up to the pixel's own. */
  softness: number;
}

/** `#rrggbb` as its three channel values. */
export function rgbOfHex(color: string): [number, number, number] {
  const value = Number.parseInt(color.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

/** What a `key` step did (docs/imaging.md "Clean edges"): how much of the image it made transparent, and what colour it met at the edges. */
export interface KeyReport {
  /** The key colour, `#rrggbb`, and the step's distances. */
  color: string;
  tolerance: number;
  softness: number;
  /** The image's pixels. */
  pixels: number;
  /** Pixels it made fully transparent. */
  keyed: number;
  /** Pixels it made partly transparent (the soft edge). */
  softened: number;
  /** (keyed + softened) / pixels, to 4 decimals. */
  share: number;
  /** Pixels less than fully opaque once it ran (those it made, and any the image had already). */
  transparent: number;
  /** The most common colour of the image's border as the step found it (`#rrggbb`): the background drawn; null when every border pixel was transparent. */
  border: string | null;
}

/**
 * Below this share of its pixels transparent or partly so once `key` has run, the image is taken
 * to be (almost) opaque: the key colour was (almost) nowhere, and the build warns (keyWarning).
 */
export const KEY_WARN_SHARE = 0.01;

/**
 * Chroma key, in place. For each pixel with alpha a > 0, d = the largest of |r − kr|, |g − kg|,
 * |b − kb| (its distance to the key colour, 0-255), T = tolerance, S = softness:
 * - d ≤ T: the pixel becomes (0, 0, 0, 0);
 * - d ≥ T + S: unchanged;
 * - between, f = (d − T) / S: alpha becomes round(a · f), and each colour channel c becomes
 *   k + round((c − k) / f), clamped to 0-255 — the colour that, drawn at f over the key colour,
 *   gives the pixel back: the key's spill is taken out of the edge. (An alpha that rounds to 0 makes
 *   the pixel (0, 0, 0, 0) too.)
 * `round` is half up (Math.round). Returns how much it keyed, and the border's most common colour
 * as it found it (what the model drew as a background).
 */
export function keyToAlpha(image: RawImage, key: KeySpec): KeyReport {
  const { data } = image;
  const border = borderColour(image);
  const [kr, kg, kb] = rgbOfHex(key.color);
  const { tolerance, softness } = key;
  let keyed = 0;
  let softened = 0;
  let transparent = 0;
  for (let offset = 0; offset < data.length; offset += 4) {
    const alpha = data[offset + 3];
    if (alpha !== 255) transparent++;
    if (alpha === 0) continue;
    const dr = data[offset] - kr;
    const dg = data[offset + 1] - kg;
    const db = data[offset + 2] - kb;
    const over = Math.max(Math.abs(dr), Math.abs(dg), Math.abs(db)) - tolerance;
    if (over > 0 && over >= softness) continue;
    const keptAlpha = over <= 0 ? 0 : Math.round((alpha * over) / softness);
    if (alpha === 255) transparent++;
    if (keptAlpha === 0) {
      data.writeUInt32BE(0, offset);
      keyed++;
      continue;
    }
    data[offset] = clampByte(kr + Math.round((dr * softness) / over));
    data[offset + 1] = clampByte(kg + Math.round((dg * softness) / over));
    data[offset + 2] = clampByte(kb + Math.round((db * softness) / over));
    data[offset + 3] = keptAlpha;
    softened++;
  }
  const pixels = data.length / 4;
  const share = Math.round(((keyed + softened) / pixels) * 10_000) / 10_000;
  return { color: key.color, tolerance, softness, pixels, keyed, softened, share, transparent, border };
}

/**
 * The most common colour among the visible pixels (alpha > 0) of the image's outermost rows and
 * columns, `#rrggbb`: of the colours grouped by their top 5 bits a channel (a JPEG's noisy
 * background is one group), the largest group's most common colour; ties go to the one met first
 * (top row, bottom row, left column, right column). null when no border pixel is visible.
 */
export function borderColour(image: RawImage): string | null {
  const { data, width, height } = image;
  const colours = new Map<number, number>();
  const groups = new Map<number, number>();
  const count = (x: number, y: number): void => {
    const at = (y * width + x) * 4;
    if (data[at + 3] === 0) return;
    const rgb = (data[at] << 16) | (data[at + 1] << 8) | data[at + 2];
    colours.set(rgb, (colours.get(rgb) ?? 0) + 1);
    const group = rgb & 0xf8f8f8;
    groups.set(group, (groups.get(group) ?? 0) + 1);
  };
  for (let x = 0; x < width; x++) count(x, 0);
  if (height > 1) for (let x = 0; x < width; x++) count(x, height - 1);
  for (let y = 1; y < height - 1; y++) {
    count(0, y);
    if (width > 1) count(width - 1, y);
  }
  const largest = (counts: Map<number, number>, keep: (key: number) => boolean): number | undefined => {
    let best: number | undefined;
    for (const [key, n] of counts) if (keep(key) && (best === undefined || n > counts.get(best)!)) best = key;
    return best;
  };
  const group = largest(groups, () => true);
  if (group === undefined) return null;
  const colour = largest(colours, (rgb) => (rgb & 0xf8f8f8) === group)!;
  return `#${colour.toString(16).padStart(6, '0')}`;
}

/**
 * The build's warning for a key that left its image (almost) opaque (fewer than KEY_WARN_SHARE of
 * its pixels transparent or partly so): the key colour, what it keyed, and the border's colour as
 * the hint (what the model drew). Undefined when the image has its transparency. Not an error: the
 * output is written.
 */
export function keyWarning(report: KeyReport): string | undefined {
  if (report.transparent >= report.pixels * KEY_WARN_SHARE) return undefined;
  const { color, border } = report;
  const made = report.keyed + report.softened;
  const count = (n: number): string => n.toLocaleString('en-US');
  const what = made
    ? `made only ${count(made)} of ${count(report.pixels)} pixels transparent or partly so (${(report.share * 100).toFixed(2)} %)`
    : `made no pixel transparent (of ${count(report.pixels)})`;
  // The border's colour within the key's reach: keyed, but it is a thin frame around a picture that fills the canvas.
  const reached = border !== null && distance(border, color) < report.tolerance + report.softness;
  const drawn =
    border === null
      ? 'its border is transparent already'
      : reached
        ? `the image's border is mostly ${border}, which it keyed, but the picture fills the rest`
        : `the image's border is mostly ${border}, so the background drawn is another colour`;
  const fix =
    border === null || reached
      ? `Raise the key's tolerance, or ask for a wide flat ${color} background in the prompt.`
      : `Set the key to the colour drawn (key: '${border}'), raise its tolerance, or ask for a flat ${color} background in the prompt.`;
  return (
    `key ${color} ${what}: ${drawn}. The output is written as it is, ${made ? 'almost ' : ''}opaque. ${fix} ` +
    'The build still succeeds: a rule checks: { alpha: required } in assetgen.yaml is what fails such an image (in CI).'
  );
}

/** The largest difference of R, G or B between two `#rrggbb` colours: key's distance. */
function distance(a: string, b: string): number {
  const [ar, ag, ab] = rgbOfHex(a);
  const [br, bg, bb] = rgbOfHex(b);
  return Math.max(Math.abs(ar - br), Math.abs(ag - bg), Math.abs(ab - bb));
}

const clampByte = (value: number): number => (value < 0 ? 0 : value > 255 ? 255 : value);

/**
 * Alpha bleed, in place: the RGB of each fully transparent pixel (alpha 0) up to `radius` pixels from
 * a visible one (alpha > 0) becomes the RGB of its nearest visible pixel; alpha bytes are never
 * written, and no colour is made (only copied). In passes: pass n colours the transparent pixels
 * next to (8-neighbourhood) a pixel visible or coloured before it, so a pixel n steps away (the
 * larger of its x and y distances) takes its colour in pass n. When several neighbours qualify, the
 * first of left, right, above, below, above-left, above-right, below-left, below-right gives it.
 * Memory: one bit a pixel, and two rows of them.
 */
export function bleedEdges(image: RawImage, radius: number): void {
  const { data, width, height } = image;
  const stride = (width + 7) >> 3;
  /** Bit x of row y: the pixel is visible, or coloured by an earlier pass. */
  const coloured = new Uint8Array(stride * height);
  /** Rows where every pixel is coloured: no pass looks at them again. */
  const done = new Uint8Array(height);
  /** Rows with a coloured pixel: a row with none, between two with none, has nothing to copy from. */
  const lit = new Uint8Array(height);
  let anyVisible = false;
  for (let y = 0; y < height; y++) {
    let all = true;
    for (let x = 0; x < width; x++) {
      if (data[(y * width + x) * 4 + 3] !== 0) {
        coloured[y * stride + (x >> 3)] |= 1 << (x & 7);
        anyVisible = true;
        lit[y] = 1;
      } else all = false;
    }
    if (all) done[y] = 1;
  }
  // Nothing to copy from: a wholly transparent image stays as it is.
  if (!anyVisible) return;
  // The row above and this row as they were before this pass: a pixel coloured in pass n is read by pass n + 1 only.
  let above = new Uint8Array(stride);
  let here = new Uint8Array(stride);
  const isSet = (bits: Uint8Array, start: number, x: number): boolean => (bits[start + (x >> 3)] & (1 << (x & 7))) !== 0;
  for (let pass = 1; pass <= radius; pass++) {
    let changed = false;
    for (let y = 0; y < height; y++) {
      const rowStart = y * stride;
      [above, here] = [here, above];
      here.set(coloured.subarray(rowStart, rowStart + stride));
      const hasAbove = y > 0;
      const hasBelow = y + 1 < height;
      if (done[y] || !(lit[y] || (hasAbove && lit[y - 1]) || (hasBelow && lit[y + 1]))) continue;
      const belowStart = rowStart + stride;
      /** Any coloured pixel among bytes b - 1 to b + 1 of the three rows (as the last pass left them). */
      const near = (b: number): boolean => {
        for (let at = Math.max(0, b - 1); at <= Math.min(stride - 1, b + 1); at++)
          if (here[at] || (hasAbove && above[at]) || (hasBelow && coloured[belowStart + at])) return true;
        return false;
      };
      let all = true;
      for (let x = 0; x < width; x++) {
        if ((x & 7) === 0) {
          // Eight pixels at once: all coloured (bits past the row's end are never set, so a last
          // partial byte is never 0xff), or none of them or their neighbours coloured yet.
          const b = x >> 3;
          if (here[b] === 0xff || !near(b)) {
            if (here[b] !== 0xff) all = false;
            x += 7;
            continue;
          }
        }
        if ((here[x >> 3] & (1 << (x & 7))) !== 0) continue;
        // The neighbours in the documented order; `below` is still as the last pass left it.
        let from = -1;
        if (x > 0 && isSet(here, 0, x - 1)) from = x - 1 + y * width;
        else if (x + 1 < width && isSet(here, 0, x + 1)) from = x + 1 + y * width;
        else if (hasAbove && isSet(above, 0, x)) from = x + (y - 1) * width;
        else if (hasBelow && isSet(coloured, belowStart, x)) from = x + (y + 1) * width;
        else if (hasAbove && x > 0 && isSet(above, 0, x - 1)) from = x - 1 + (y - 1) * width;
        else if (hasAbove && x + 1 < width && isSet(above, 0, x + 1)) from = x + 1 + (y - 1) * width;
        else if (hasBelow && x > 0 && isSet(coloured, belowStart, x - 1)) from = x - 1 + (y + 1) * width;
        else if (hasBelow && x + 1 < width && isSet(coloured, belowStart, x + 1)) from = x + 1 + (y + 1) * width;
        if (from < 0) {
          all = false;
          continue;
        }
        data.copy(data, (y * width + x) * 4, from * 4, from * 4 + 3);
        coloured[rowStart + (x >> 3)] |= 1 << (x & 7);
        lit[y] = 1;
        changed = true;
      }
      if (all) done[y] = 1;
    }
    if (!changed) return;
  }
}

/**
 * A new image `pixels` larger on every side, the border repeating the nearest edge pixel (corners
 * the corner pixel), alpha included: a texture sampled at its edge with linear filtering (or clamped
 * and scaled) reads the sprite's own edge, not transparency or its neighbour in memory.
 */
export function extrudeImage(image: RawImage, pixels: number): RawImage {
  const out = blank(image.width + 2 * pixels, image.height + 2 * pixels);
  blitExtruded(image, out, pixels, pixels, pixels);
  return out;
}

/** Copies `source` (an atlas frame, or an image to extrude) with its top-left at (x, y) and repeats its edge pixels `extrude` times around it. */
export function blitExtruded(source: RawImage, target: RawImage, x: number, y: number, extrude: number): void {
  const rowBytes = source.width * 4;
  for (let row = -extrude; row < source.height + extrude; row++) {
    const sourceRow = Math.min(source.height - 1, Math.max(0, row)) * rowBytes;
    const targetRow = ((y + row) * target.width + x) * 4;
    source.data.copy(target.data, targetRow, sourceRow, sourceRow + rowBytes);
    for (let step = 1; step <= extrude; step++) {
      source.data.copy(target.data, targetRow - step * 4, sourceRow, sourceRow + 4);
      source.data.copy(target.data, targetRow + rowBytes + (step - 1) * 4, sourceRow + rowBytes - 4, sourceRow + rowBytes);
    }
  }
}
