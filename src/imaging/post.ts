// Post-processing one image: decode, run the steps in order on RGBA pixels, encode. Same bytes and
// steps in, same bytes out (fixed encoder settings, no metadata written).
import { ImagingError } from './errors.js';
import { POST_LIMITS } from './limits.js';
import { quantise, quantiseToPng } from './palette.js';
import type { PostStep } from './post-steps.js';
import { blank, blit, checkSize, crop, decodeImage, encodeImage, opaqueBounds, type OutputFormat, type RawImage } from './raw.js';
import { resizeImage } from './resize.js';

export type { PostStep } from './post-steps.js';

/** Where the trimmed picture was in the image `trim` saw (offsets and sizes in that image's pixels). */
export interface TrimRecord {
  left: number;
  top: number;
  width: number;
  height: number;
  sourceWidth: number;
  sourceHeight: number;
}

export interface PostResult {
  bytes: Buffer;
  width: number;
  height: number;
  format: OutputFormat;
  /** Present when the steps had a trim. */
  trim?: TrimRecord;
}

/**
 * Runs `steps` (from parsePostSteps) on an image's bytes (PNG, JPEG, WebP or GIF). The result is PNG
 * unless a `format: webp` step says otherwise. Bad input is an ImagingError, never a crash.
 */
export async function applyPostSteps(input: Buffer, steps: readonly PostStep[], label = 'the image'): Promise<PostResult> {
  let image = await decodeImage(input, label, POST_LIMITS);
  let trim: TrimRecord | undefined;
  // `format` is the last step (parsePostSteps sees to it), so the palette step knows what it writes.
  const format: OutputFormat = steps.findLast((step) => step.kind === 'format')?.format ?? 'png';
  let indexedPng: Buffer | undefined;
  for (const step of steps) {
    switch (step.kind) {
      case 'trim': {
        const result = trimImage(image, step.threshold);
        image = result.image;
        trim = result.trim;
        break;
      }
      case 'resize':
        image = await resizeImage(image, step, POST_LIMITS);
        break;
      case 'pot':
        image = padToPowerOfTwo(image);
        break;
      case 'palette':
        // The last step to change pixels (parsePostSteps sees to it): a PNG result is the indexed PNG
        // the quantiser writes, so the pixels are quantised and encoded once.
        if (format === 'png') indexedPng = await quantiseToPng(image, step.colors, step.dither);
        else image = await quantise(image, step.colors, step.dither);
        break;
      case 'format':
        break;
      default:
        throw new ImagingError('damaged', `unknown post step ${JSON.stringify(step satisfies never)}`);
    }
  }
  const bytes = indexedPng ?? (await encodeImage(image, format));
  return { bytes, width: image.width, height: image.height, format, ...(trim ? { trim } : {}) };
}

/**
 * Cuts away the rows and columns at the edges whose every pixel has alpha ≤ threshold. A picture with
 * nothing above it becomes one transparent pixel: an image has at least one.
 */
export function trimImage(image: RawImage, threshold = 0): { image: RawImage; trim: TrimRecord } {
  const bounds = opaqueBounds(image, threshold);
  const source = { sourceWidth: image.width, sourceHeight: image.height };
  if (!bounds) return { image: blank(1, 1), trim: { left: 0, top: 0, width: 1, height: 1, ...source } };
  const same = bounds.width === image.width && bounds.height === image.height;
  return { image: same ? image : crop(image, bounds), trim: { ...bounds, ...source } };
}

export const nextPowerOfTwo = (value: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, value)));

/** Transparent pixels added right and below, so each side is a power of two; the picture stays at the top left. */
export function padToPowerOfTwo(image: RawImage): RawImage {
  const width = nextPowerOfTwo(image.width);
  const height = nextPowerOfTwo(image.height);
  if (width === image.width && height === image.height) return image;
  checkSize(width, height, 'the power-of-two image', POST_LIMITS);
  const out = blank(width, height);
  blit(image, out, 0, 0);
  return out;
}
