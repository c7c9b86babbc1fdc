// Numbers that help choose between takes (docs/imaging.md "Numbers beside each take"): the canvas,
// what of it is drawn, how many colours, whether any pixel lets the background through. Cheap and
// local, from the decoded pixels, no service call: aids for a person or an agent, never a verdict.
import { countColours, decodeImage, opaqueBounds, type RawImage, type Rect } from './raw.js';
import { COLOUR_COUNT_CAP } from './limits.js';

/** Colours are counted up to this many (the figure lives with the other limits, for the manifest's `colors` check). */
export { COLOUR_COUNT_CAP };

export interface TakeMetrics {
  width: number;
  height: number;
  /** The smallest rectangle holding every pixel that is not fully transparent; null when every pixel is. */
  opaqueBounds: Rect | null;
  /** The part of the canvas that rectangle covers, 0 to 1 (3 decimals): low means a small drawing on a large canvas. */
  fill: number;
  /** Distinct RGBA values; `atLeast` when the count stopped at COLOUR_COUNT_CAP. */
  colours: { count: number; atLeast: boolean };
  /** Whether any pixel is less than fully opaque (a sprite on a transparent background has). */
  transparency: boolean;
}

export function measurePixels(image: RawImage): TakeMetrics {
  const bounds = opaqueBounds(image) ?? null;
  const counted = countColours(image, COLOUR_COUNT_CAP);
  const canvas = image.width * image.height;
  return {
    width: image.width,
    height: image.height,
    opaqueBounds: bounds,
    fill: bounds ? Math.round(((bounds.width * bounds.height) / canvas) * 1000) / 1000 : 0,
    colours: counted > COLOUR_COUNT_CAP ? { count: COLOUR_COUNT_CAP, atLeast: true } : { count: counted, atLeast: false },
    transparency: hasTransparency(image),
  };
}

/** Decodes a take's bytes (PNG, JPEG, WebP, GIF: raw.ts's limits apply) and measures it; the pixels are returned for reuse. */
export async function measureTake(bytes: Buffer, label: string): Promise<{ metrics: TakeMetrics; image: RawImage }> {
  const image = await decodeImage(bytes, label);
  return { metrics: measurePixels(image), image };
}

function hasTransparency(image: RawImage): boolean {
  for (let offset = 3; offset < image.data.length; offset += 4) if (image.data[offset] !== 255) return true;
  return false;
}

/** `64×64 · drawn 40×52 (51% of the canvas) · 12 colours · transparent background`, for people. */
export function describeMetrics(metrics: TakeMetrics): string {
  const { opaqueBounds: bounds } = metrics;
  const drawn = bounds ? `drawn ${bounds.width}×${bounds.height} (${Math.round(metrics.fill * 100)}% of the canvas)` : 'nothing drawn';
  const colours = `${metrics.colours.atLeast ? '≥' : ''}${metrics.colours.count} colour${metrics.colours.count === 1 ? '' : 's'}`;
  return [`${metrics.width}×${metrics.height}`, drawn, colours, metrics.transparency ? 'has transparency' : 'opaque'].join(' · ');
}
