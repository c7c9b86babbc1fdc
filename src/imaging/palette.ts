// Quantising to at most N colours. sharp's quantiser (libimagequant) makes a palette of a power of two
// entries (colours: 5 gives up to 8), so when it returns more than N the rarest colours are merged
// into their nearest neighbours until N are left — deterministic, and checked.
import { ImagingError } from './errors.js';
import { countColours, decodeImage, type RawImage } from './raw.js';
import { loadSharp } from './sharp.js';

export async function quantise(image: RawImage, colours: number, dither: number): Promise<RawImage> {
  if (countColours(image, colours) <= colours) return image;
  const sharp = await loadSharp();
  const indexed = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .png({ palette: true, colours, dither, effort: 10, compressionLevel: 0 })
    .toBuffer();
  const reduced = mergeRarest(await decodeImage(indexed, 'the quantised image'), colours);
  const left = countColours(reduced, colours);
  if (left > colours) throw new ImagingError('damaged', `quantising left ${left} colours, more than ${colours}`);
  return reduced;
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
