// Quantising to at most N colours. sharp's quantiser (libimagequant, at its best effort) makes a
// palette of a power of two entries (colours: 5 gives up to 8), so when it returns more than N the
// rarest colours are merged into their nearest neighbours until N are left — deterministic, and
// checked. It runs once per image: a PNG result is the quantiser's own indexed PNG whenever its
// palette fits, and an image that already fits is written indexed here, with no quantiser at all.
import { ImagingError } from './errors.js';
import { countColours, decodeImage, encodeIndexedPng, PNG_OPTIONS, type RawImage } from './raw.js';
import { loadSharp } from './sharp.js';

/** The image's pixels at most `colours` colours (for a result that is not a PNG). */
export async function quantise(image: RawImage, colours: number, dither: number): Promise<RawImage> {
  if (countColours(image, colours) <= colours) return image;
  // Decoded again at once: no point compressing.
  const indexed = await runQuantiser(image, colours, dither, 0);
  return fitPalette(await decodeImage(indexed, 'the quantised image'), colours);
}

/** The image quantised to at most `colours` colours, as an indexed PNG (a PLTE chunk). */
export async function quantiseToPng(image: RawImage, colours: number, dither: number): Promise<Buffer> {
  if (countColours(image, colours) <= colours) return encodeIndexedPng(image);
  const indexed = await runQuantiser(image, colours, dither, PNG_OPTIONS.compressionLevel);
  // Every pixel is one of the palette's entries: at most N entries, and these bytes are the result.
  if (paletteEntries(indexed) <= colours) return indexed;
  return encodeIndexedPng(fitPalette(await decodeImage(indexed, 'the quantised image'), colours));
}

async function runQuantiser(image: RawImage, colours: number, dither: number, compressionLevel: number): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .png({ ...PNG_OPTIONS, palette: true, colours, dither, effort: 10, compressionLevel })
    .toBuffer();
}

/** The quantiser's result brought down to `colours` (when its palette rounded N up), and checked. */
function fitPalette(quantised: RawImage, colours: number): RawImage {
  const reduced = mergeRarest(quantised, colours);
  const left = countColours(reduced, colours);
  if (left > colours) throw new ImagingError('damaged', `quantising left ${left} colours, more than ${colours}`);
  return reduced;
}

/** The number of entries in a PNG's PLTE chunk (Infinity when it has none: not an indexed PNG). */
export function paletteEntries(png: Buffer): number {
  // After the 8-byte signature, chunks: length, type, body, CRC.
  for (let offset = 8; offset + 8 <= png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    if (type === 'PLTE') return length / 3;
    if (type === 'IDAT' || type === 'IEND') break;
    offset += 12 + length;
  }
  return Infinity;
}
/** Merges the rarest colour (the lowest value on a tie) into its nearest other colour until at most `colours` are left. */
export function mergeRarest(image: RawImage, colours: number): RawImage {
  const counts = new Map<number, number>();
  for (let offset = 0; offset < image.data.length; offset += 4) {
    const value = image.data.readUInt32BE(offset);
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  if (counts.size <= colours) return image;
  const into = new Map<number, number>();
  while (counts.size > colours) {
    let rarest = -1;
    let fewest = Infinity;
    for (const [value, count] of counts) {
      if (count < fewest || (count === fewest && value < rarest)) [rarest, fewest] = [value, count];
    }
    counts.delete(rarest);
    let nearest = -1;
    let best = Infinity;
    for (const value of counts.keys()) {
      const distance = colourDistance(rarest, value);
      if (distance < best || (distance === best && value < nearest)) [nearest, best] = [value, distance];
    }
    counts.set(nearest, counts.get(nearest)! + fewest);
    into.set(rarest, nearest);
  }
  const finalOf = (value: number): number => {
    let current = value;
    while (into.has(current)) current = into.get(current)!;
    return current;
  };
  const data = Buffer.from(image.data);
  for (let offset = 0; offset < data.length; offset += 4) {
    const value = data.readUInt32BE(offset);
    if (into.has(value)) data.writeUInt32BE(finalOf(value), offset);
  }
  return { data, width: image.width, height: image.height };
}

/** Squared distance between two RGBA values packed as 0xRRGGBBAA. */
function colourDistance(a: number, b: number): number {
  let sum = 0;
  for (let shift = 0; shift < 32; shift += 8) {
    const difference = ((a >>> shift) & 0xff) - ((b >>> shift) & 0xff);
    sum += difference * difference;
  }
  return sum;
}
