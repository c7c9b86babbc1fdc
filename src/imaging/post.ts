// Post-processing one image: decode, run the steps in order on RGBA pixels, encode. Same bytes and
// steps in, same bytes out (fixed encoder settings, no metadata written).
import { bleedEdges, extrudeImage, keyToAlpha } from './edges.js';
import { ImagingError } from './errors.js';
import { quantise } from './palette.js';
import type { PostStep } from './post-steps.js';
import {
  blank,
  blit,
  checkSize,
  crop,
  decodeImage,
  encodeImage,
  encodeIndexedPng,
  opaqueBounds,
  type OutputFormat,
  type RawImage,
} from './raw.js';
import { resizeImage } from './resize.js';
import { sliceCells, type SliceSpec } from './slice.js';

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

/** The pixels between steps, and what the steps said of them so far. */
interface StepState {
  image: RawImage;
  trim?: TrimRecord;
  format: OutputFormat;
  paletteColours?: number;
}

/**
 * Runs `steps` (from parsePostSteps) on an image's bytes (PNG, JPEG, WebP or GIF). The result is PNG
 * unless a `format: webp` step says otherwise. Bad input is an ImagingError, never a crash. Steps
 * with a `slice` make several images: applyPostStepsToFrames.
 */
export async function applyPostSteps(input: Buffer, steps: readonly PostStep[], label = 'the image'): Promise<PostResult> {
  return encodeResult(await runSteps({ image: await decodeImage(input, label), format: 'png' }, steps));
}

/**
 * Runs `steps` and gives every image they make, in order: one, or with a `slice` step the frames it
 * cuts (the steps after it run on each frame, one frame at a time; a trim record is then in the
 * pixels of the frame's cell, its source size the cell's).
 */
export async function applyPostStepsToFrames(input: Buffer, steps: readonly PostStep[], label = 'the image'): Promise<PostResult[]> {
  const at = steps.findIndex((step) => step.kind === 'slice');
  if (at < 0) return [await applyPostSteps(input, steps, label)];
  const whole = await runSteps({ image: await decodeImage(input, label), format: 'png' }, steps.slice(0, at));
  const results: PostResult[] = [];
  for (const cell of sliceCells(whole.image, steps[at] as SliceSpec))
    results.push(await encodeResult(await runSteps({ image: crop(whole.image, cell), format: whole.format }, steps.slice(at + 1))));
  return results;
}

async function runSteps(state: StepState, steps: readonly PostStep[]): Promise<StepState> {
  let { image, trim, format, paletteColours } = state;
  for (const step of steps) {
    switch (step.kind) {
      case 'trim': {
        const result = trimImage(image, step.threshold);
        image = result.image;
        trim = result.trim;
        break;
      }
      case 'resize':
        image = await resizeImage(image, step);
        break;
      case 'pot':
        image = padToPowerOfTwo(image);
        break;
      case 'palette':
        image = await quantise(image, step.colors, step.dither);
        paletteColours = step.colors;
        break;
      case 'format':
        format = step.format;
        break;
      case 'key':
        keyToAlpha(image, step);
        break;
      case 'extrude':
        image = extrudeImage(image, step.pixels);
        break;
      case 'bleed':
        bleedEdges(image, step.radius);
        // Transparent pixels now hold colours an indexed PNG's quantiser would drop: written RGBA.
        paletteColours = undefined;
        break;
      case 'slice':
        // applyPostStepsToFrames cuts; one image cannot hold several.
        throw new ImagingError('slice_failed', 'slice makes several images: they are made by applyPostStepsToFrames');
      default:
        throw new ImagingError('damaged', `unknown post step ${JSON.stringify(step satisfies never)}`);
    }
  }
  return { image, trim, format, paletteColours };
}

async function encodeResult({ image, trim, format, paletteColours }: StepState): Promise<PostResult> {
  // After a palette step only extrude may change pixels, copying them (parsePostSteps sees to it): keep the PNG indexed.
  const indexed = format === 'png' && paletteColours !== undefined ? await encodeIndexedPng(image, paletteColours) : undefined;
  const bytes = indexed ?? (await encodeImage(image, format));
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
  checkSize(width, height, 'the power-of-two image');
  const out = blank(width, height);
  blit(image, out, 0, 0);
  return out;
}
