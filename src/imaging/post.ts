// Post-processing one image: decode, run the steps in order on RGBA pixels, encode. Same bytes and
// steps in, same bytes out (fixed encoder settings, no metadata written).
import { bleedEdges, extrudeImage, keyToAlpha } from './edges.js';
import { ImagingError } from './errors.js';
import { POST_LIMITS } from './limits.js';
import { quantise, quantiseToPng } from './palette.js';
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
  /** A palette step's colours when `image` holds its quantised pixels (a step after it needed them). */
  paletteColours?: number;
  /** A palette step's result as the quantiser wrote it: the output's bytes (no step after it changes pixels). */
  indexedPng?: Buffer;
}

/**
 * Runs `steps` (from parsePostSteps) on an image's bytes (PNG, JPEG, WebP or GIF). The result is PNG
 * unless a `format: webp` step says otherwise. Bad input is an ImagingError, never a crash. Steps
 * with a `slice` make several images: applyPostStepsToFrames.
 */
export async function applyPostSteps(input: Buffer, steps: readonly PostStep[], label = 'the image'): Promise<PostResult> {
  return encodeResult(await runSteps({ image: await decodeImage(input, label, POST_LIMITS), format: formatOf(steps) }, steps));
}

/** `format` is the last step (parsePostSteps sees to it): known before the steps run, so the palette step knows what it writes. */
const formatOf = (steps: readonly PostStep[]): OutputFormat => steps.findLast((step) => step.kind === 'format')?.format ?? 'png';

/**
 * Runs `steps` and gives every image they make, in order: one, or with a `slice` step the frames it
 * cuts (the steps after it run on each frame, one frame at a time; a trim record is then in the
 * pixels of the frame's cell, its source size the cell's).
 */
export async function applyPostStepsToFrames(input: Buffer, steps: readonly PostStep[], label = 'the image'): Promise<PostResult[]> {
  const at = steps.findIndex((step) => step.kind === 'slice');
  if (at < 0) return [await applyPostSteps(input, steps, label)];
  const format = formatOf(steps);
  const whole = await runSteps({ image: await decodeImage(input, label, POST_LIMITS), format }, steps.slice(0, at));
  const results: PostResult[] = [];
  for (const cell of sliceCells(whole.image, steps[at] as SliceSpec))
    results.push(await encodeResult(await runSteps({ image: crop(whole.image, cell), format }, steps.slice(at + 1))));
  return results;
}

async function runSteps(state: StepState, steps: readonly PostStep[]): Promise<StepState> {
  let { image, trim, paletteColours, indexedPng } = state;
  const { format } = state;
  for (const [index, step] of steps.entries()) {
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
        // Usually the last step to change pixels: a PNG result is then the indexed PNG the quantiser
        // writes, so the pixels are quantised and encoded once. `extrude` or `bleed` may follow it
        // (parsePostSteps): the quantised pixels are then kept for them.
        if (format === 'png' && !steps.slice(index + 1).some((later) => later.kind === 'extrude' || later.kind === 'bleed'))
          indexedPng = await quantiseToPng(image, step.colors, step.dither);
        else {
          image = await quantise(image, step.colors, step.dither);
          paletteColours = step.colors;
        }
        break;
      case 'format':
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
  return { image, trim, format, paletteColours, indexedPng };
}

async function encodeResult({ image, trim, format, paletteColours, indexedPng }: StepState): Promise<PostResult> {
  // A palette step's image is written indexed: the quantiser's own PNG when no step changed it
  // after, else (extrude copied its pixels) encoded here from its palette.
  const indexed = indexedPng ?? (format === 'png' && paletteColours !== undefined ? encodeIndexedPng(image) : undefined);
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
  checkSize(width, height, 'the power-of-two image', POST_LIMITS);
  const out = blank(width, height);
  blit(image, out, 0, 0);
  return out;
}
