// The bytes of each inline image protocol. Pure functions of their input, so the tests compare
// exact bytes. All three end with a newline, so the next line of output starts below the image.
import type { Pixels } from './image.js';

/** How tall a preview is, in text rows: enough to recognise the asset, small enough not to flood. */
export const PREVIEW_ROWS = 8;
/** Base64 characters per kitty escape code: the protocol's limit for a chunk. */
export const KITTY_CHUNK = 4096;

const ESC = '\u001b';
const ST = `${ESC}\\`; // string terminator

/**
 * kitty graphics protocol: transmit and display (a=T) a PNG (f=100), scaled by the terminal to
 * PREVIEW_ROWS rows (r; the width follows the aspect ratio). q=2 asks for no response at all, so
 * nothing is ever typed back into the user's shell. The base64 data goes in chunks of at most 4096
 * characters: m=1 on all but the last, m=0 on the last; only the first carries the other keys.
 * Understood by kitty, Ghostty and (in part) others.
 */
export function kittyImage(png: Uint8Array, rows = PREVIEW_ROWS): string {
  const data = Buffer.from(png).toString('base64');
  const keys = `a=T,f=100,q=2,r=${rows}`;
  if (data.length <= KITTY_CHUNK) return `${ESC}_G${keys};${data}${ST}\n`;
  const parts: string[] = [];
  for (let at = 0; at < data.length; at += KITTY_CHUNK) {
    const more = at + KITTY_CHUNK < data.length ? 1 : 0;
    parts.push(`${ESC}_G${at === 0 ? `${keys},` : ''}m=${more};${data.slice(at, at + KITTY_CHUNK)}${ST}`);
  }
  return `${parts.join('')}\n`;
}

/**
 * iTerm2 inline images (OSC 1337 File), also spoken by WezTerm and mintty: the file's bytes in
 * base64, `size` in bytes, `height` in text rows (the width follows, aspect ratio kept).
 */
export function itermImage(file: Uint8Array, rows = PREVIEW_ROWS): string {
  return `${ESC}]1337;File=inline=1;size=${file.length};height=${rows}:${Buffer.from(file).toString('base64')}\u0007\n`;
}

/** Sixel cannot be told a size in rows: images are drawn at their pixel size, so shrink them first. */
export const SIXEL_MAX_WIDTH = 480;
export const SIXEL_MAX_HEIGHT = 120;
/** Colours used as they are when there are at most this many; else the image is quantised. */
export const SIXEL_MAX_COLOURS = 64;

/**
 * DEC sixel (DCS … q … ST). P2=1: pixels left unpainted keep the background, so transparency
 * shows as the terminal's own background. Raster attributes give the size up front; each colour
 * register is defined once (#n;2;r;g;b in percent); then each band of six pixel rows is painted
 * colour by colour (`$` returns to the band's start, `-` moves to the next band), runs of four or
 * more identical sixels compressed as `!count`.
 */
export function sixelImage(image: Pixels): string {
  const { width, height, data } = image;
  const { palette, indices } = quantise(image);
  let out = `${ESC}P0;1;0q"1;1;${width};${height}`;
  palette.forEach(([r, g, b], n) => {
    out += `#${n};2;${percent(r)};${percent(g)};${percent(b)}`;
  });
  const bands: string[] = [];
  for (let top = 0; top < height; top += 6) {
    const rows: string[] = [];
    for (let colour = 0; colour < palette.length; colour++) {
      let line = '';
      let used = false;
      for (let x = 0; x < width; x++) {
        let bits = 0;
        for (let dy = 0; dy < 6 && top + dy < height; dy++) {
          const pixel = (top + dy) * width + x;
          if (data[pixel * 4 + 3] >= 128 && indices[pixel] === colour) bits |= 1 << dy;
        }
        if (bits) used = true;
        line += String.fromCharCode(63 + bits);
      }
      if (used) rows.push(`#${colour}${runLength(line.replace(/\?+$/, ''))}`);
    }
    bands.push(rows.join('$'));
  }
  return `${out}${bands.join('-')}${ST}\n`;
}

const percent = (value: number): number => Math.round((value * 100) / 255);

function runLength(line: string): string {
  return line.replace(/(.)\1{3,}/g, (run, char: string) => `!${run.length}${char}`);
}

type Rgb = [number, number, number];

/**
 * A palette for the opaque pixels: their own colours, in order of first appearance, when there
 * are few (pixel art: exact); else a 4×4×4 colour cube (64 colours), each pixel to its nearest level.
 */
export function quantise(image: Pixels): { palette: Rgb[]; indices: Uint16Array } {
  const { data } = image;
  const count = image.width * image.height;
  const indices = new Uint16Array(count);
  const exact = collect(data, count, (r, g, b) => [r, g, b]);
  if (exact) return exact;
  const level = (value: number): number => Math.round(value / 85) * 85;
  return collect(data, count, (r, g, b) => [level(r), level(g), level(b)]) ?? { palette: [], indices };
}

/** Palette and per-pixel indices after mapping each colour; undefined past SIXEL_MAX_COLOURS. */
function collect(data: Uint8Array, count: number, map: (r: number, g: number, b: number) => Rgb) {
  const palette: Rgb[] = [];
  const seen = new Map<number, number>();
  const indices = new Uint16Array(count);
  for (let pixel = 0; pixel < count; pixel++) {
    const at = pixel * 4;
    if (data[at + 3] < 128) continue;
    const colour = map(data[at], data[at + 1], data[at + 2]);
    const key = (colour[0] << 16) | (colour[1] << 8) | colour[2];
    let index = seen.get(key);
    if (index === undefined) {
      if (palette.length === SIXEL_MAX_COLOURS) return undefined;
      index = palette.length;
      seen.set(key, index);
      palette.push(colour);
    }
    indices[pixel] = index;
  }
  return { palette, indices };
}
