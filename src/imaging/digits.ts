// Numbers drawn into a raster with a bitmap font of its own: the contact sheet's take labels look the
// same on every machine, with no font installed and nothing for sharp's text renderer to guess.
import type { RawImage, Rect } from './raw.js';

/** Each digit as 7 rows of 5 columns ('#' ink, '.' none), a classic 5×7 LCD face. */
export const DIGIT_GLYPHS: Readonly<Record<string, readonly string[]>> = {
  '0': ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  '1': ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  '2': ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  '3': ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
  '4': ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  '5': ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  '6': ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
  '7': ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  '8': ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  '9': ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
};

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 7;
/** Blank columns between two digits, in glyph pixels. */
export const GLYPH_GAP = 1;

/** The size `text` takes at `scale` screen pixels per glyph pixel. */
export function digitsSize(text: string, scale: number): { width: number; height: number } {
  return { width: (text.length * (GLYPH_WIDTH + GLYPH_GAP) - GLYPH_GAP) * scale, height: GLYPH_HEIGHT * scale };
}

/**
 * Draws `text` (digits only) with its top-left corner at (left, top), each glyph pixel a
 * scale × scale square of `ink`; what falls outside the image is cut off.
 */
export function drawDigits(image: RawImage, text: string, left: number, top: number, scale: number, ink: number): void {
  [...text].forEach((digit, index) => {
    const glyph = DIGIT_GLYPHS[digit];
    if (!glyph) throw new Error(`drawDigits draws digits only, not ${JSON.stringify(digit)}`);
    const x0 = left + index * (GLYPH_WIDTH + GLYPH_GAP) * scale;
    glyph.forEach((row, gy) => {
      for (let gx = 0; gx < GLYPH_WIDTH; gx++)
        if (row[gx] === '#') fillRect(image, { left: x0 + gx * scale, top: top + gy * scale, width: scale, height: scale }, ink);
    });
  });
}

/** Fills a rectangle with one RGBA colour (0xRRGGBBAA), clipped to the image. */
export function fillRect(image: RawImage, rect: Rect, colour: number): void {
  const x0 = Math.max(0, rect.left);
  const x1 = Math.min(image.width, rect.left + rect.width);
  for (let y = Math.max(0, rect.top); y < Math.min(image.height, rect.top + rect.height); y++)
    for (let x = x0; x < x1; x++) image.data.writeUInt32BE(colour >>> 0, (y * image.width + x) * 4);
}
