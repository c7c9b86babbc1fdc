// Real pixels for the imaging tests: RGBA buffers built pixel by pixel, written as PNG by sharp, and
// read back from whatever the code under test made.
import sharp from 'sharp';

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
