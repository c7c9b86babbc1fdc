// Real pixels for the imaging tests: RGBA buffers built pixel by pixel, written as PNG by sharp, and
// read back from whatever the code under test made.
import sharp from 'sharp';
import { DIGIT_GLYPHS, GLYPH_HEIGHT, GLYPH_WIDTH } from '../../src/imaging/digits.js';

export type RGBA = readonly [number, number, number, number];

export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
}

export function makePixels(width: number, height: number, colour: (x: number, y: number) => RGBA): Pixels {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * 4);
  return { data, width, height };
}

export const toPng = (pixels: Pixels): Promise<Buffer> =>
  sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 4 } })
    .png()
    .toBuffer();

export async function readPixels(bytes: Buffer): Promise<Pixels & { format: string | undefined }> {
  const format = (await sharp(bytes).metadata()).format;
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`expected RGBA, got ${info.channels} channels`);
  return { data, width: info.width, height: info.height, format };
}

export const pixelAt = (pixels: Pixels, x: number, y: number): string =>
  pixels.data.subarray((y * pixels.width + x) * 4, (y * pixels.width + x) * 4 + 4).toString('hex');

export function coloursOf(pixels: Pixels): Set<string> {
  const colours = new Set<string>();
  for (let offset = 0; offset < pixels.data.length; offset += 4) colours.add(pixels.data.subarray(offset, offset + 4).toString('hex'));
  return colours;
}

/** The pixels of a rectangle, as a buffer to compare. */
export function region(pixels: Pixels, left: number, top: number, width: number, height: number): Buffer {
  const rows: Buffer[] = [];
  for (let y = top; y < top + height; y++)
    rows.push(pixels.data.subarray((y * pixels.width + left) * 4, (y * pixels.width + left + width) * 4));
  return Buffer.concat(rows);
}

/** A deterministic pattern with many colours, some half-transparent. */
export const noisy =
  (seed: number) =>
  (x: number, y: number): RGBA => [
    (x * 37 + seed * 11) % 256,
    (y * 53 + seed * 7) % 256,
    (x * y + seed) % 256,
    128 + ((x + y + seed) % 128),
  ];

/**
 * Reads the number a contact-sheet label shows, from its pixels alone: the white ink's extent gives
 * the glyph scale (every digit has ink in its top and bottom rows) and the padding (the same on
 * every side), then each glyph pixel is sampled at its centre and matched against the 5×7 font.
 * Throws when a glyph matches no digit, or the label's background is not black.
 */
export function readLabel(pixels: Pixels, box: { x: number; y: number; w: number; h: number }): string {
  const at = (x: number, y: number): number => pixels.data.readUInt32BE((y * pixels.width + x) * 4);
  const white = (x: number, y: number): boolean => at(x, y) === 0xffffffff;
  const black = (x: number, y: number): boolean => at(x, y) === 0x000000ff;
  let top = -1;
  let bottom = -1;
  for (let y = box.y; y < box.y + box.h; y++)
    for (let x = box.x; x < box.x + box.w; x++) {
      if (white(x, y)) {
        if (top < 0) top = y;
        bottom = y;
      } else if (!black(x, y)) throw new Error(`label pixel (${x}, ${y}) is ${at(x, y).toString(16)}, neither ink nor background`);
    }
  if (top < 0) throw new Error('no ink in the label');
  const scale = (bottom - top + 1) / GLYPH_HEIGHT;
  const pad = top - box.y;
  const count = (box.w - 2 * pad + scale) / ((GLYPH_WIDTH + 1) * scale);
  if (!Number.isInteger(scale) || !Number.isInteger(count))
    throw new Error(`label ${JSON.stringify(box)}: scale ${scale}, ${count} glyphs`);
  let text = '';
  for (let index = 0; index < count; index++) {
    const rows: string[] = [];
    for (let gy = 0; gy < GLYPH_HEIGHT; gy++) {
      let row = '';
      for (let gx = 0; gx < GLYPH_WIDTH; gx++) {
        const x = box.x + pad + (index * (GLYPH_WIDTH + 1) + gx) * scale + Math.floor(scale / 2);
        row += white(x, top + gy * scale + Math.floor(scale / 2)) ? '#' : '.';
      }
      rows.push(row);
    }
    const digit = Object.entries(DIGIT_GLYPHS).find(([, glyph]) => glyph.join('\n') === rows.join('\n'))?.[0];
    if (digit === undefined) throw new Error(`glyph ${index} of the label matches no digit:\n${rows.join('\n')}`);
    text += digit;
  }
  return text;
}
