// Post-processing one image: decode, run the steps in order on RGBA pixels, encode. Same bytes and
// steps in, same bytes out (fixed encoder settings, no metadata written).
import { bleedEdges, extrudeImage, keyToAlpha, keyWarning, type KeyReport } from './edges.js';
import { ImagingError } from './errors.js';
import { collectDeadPixels } from './collect.js';
import { ENCODER_LIMITS, POST_LIMITS } from './limits.js';
import { quantise, quantiseToPng } from './palette.js';
import type { PostStep } from './post-steps.js';
import {
  asImagingError,
  blank,
  blit,
  checkHeader,
  checkSize,
  crop,
  decodeImage,
  encodeImage,
  encodeIndexedPng,
  encodePipeline,
  opaqueBounds,
  readPipeline,
  readPngHeader,
  type OutputFormat,
  type RawImage,
  type Rect,
} from './raw.js';
import { checkedResizeGeometry, resizeImage, type ResizeSpec } from './resize.js';
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
  /** Present when the steps had a key: how much it made transparent (after a slice, of the whole image, on every frame). */
  key?: KeyReport;
  /** What the caller should say of this image, though it was made: a key that left it (almost) opaque (edges.ts keyWarning). */
  warnings?: string[];
}

/** The pixels between steps, and what the steps said of them so far. */
interface StepState {
  image: RawImage;
  trim?: TrimRecord;
  key?: KeyReport;
  format: OutputFormat;
  /** A palette step's colours when `image` holds its quantised pixels (a step after it needed them). */
  paletteColours?: number;
  /** A palette step's result as the quantiser wrote it: the output's bytes (no step after it changes pixels). */
  indexedPng?: Buffer;
  /** A trim's rectangle of `image` when no step after it changes pixels: cut out by the encoder, not copied here. */
  area?: Rect;
}

/**
 * Runs `steps` (from parsePostSteps) on an image's bytes (PNG, JPEG, WebP or GIF). The result is PNG
 * unless a `format: webp` step says otherwise. Bad input is an ImagingError, never a crash. Steps
 * with a `slice` make several images: applyPostStepsToFrames.
 */
export async function applyPostSteps(input: Buffer, steps: readonly PostStep[], label = 'the image'): Promise<PostResult> {
  const piped = await inOnePipeline(input, steps, label);
  if (piped) return piped;
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
  // A trim left to the encoder (runStep) is cut here: the frames are cells of the trimmed picture.
  if (whole.area) whole.image = crop(whole.image, whole.area);
  const results: PostResult[] = [];
  for (const cell of sliceCells(whole.image, steps[at] as SliceSpec))
    results.push(await encodeResult(await runSteps({ image: crop(whole.image, cell), format, key: whole.key }, steps.slice(at + 1))));
  return results;
}

/**
 * Steps that need no pixel in JS (a smooth `resize` that crops nothing, then `pot`, then `format`)
 * run as one sharp pipeline from the file, as a plain sharp script runs them: decoded once, no RGBA
 * copy held. Only for 8-bit RGBA PNGs without a colour profile, where that pipeline's pixels are
 * those of the steps one by one (the same resize, transparent padding copied, not blended) and the
 * bytes too (encodePipeline); for anything else, undefined: the steps run on RGBA pixels.
 */
async function inOnePipeline(input: Buffer, steps: readonly PostStep[], label: string): Promise<PostResult | undefined> {
  const png = readPngHeader(input);
  if (!png || png.depth !== 8 || png.colourType !== 6 || png.profile) return undefined;
  let resize: ResizeSpec | undefined;
  let pot = false;
  for (const [index, step] of steps.entries()) {
    if (step.kind === 'resize' && step.kernel !== 'nearest' && index === 0) resize = step;
    else if (step.kind === 'pot' && index === (resize ? 1 : 0)) pot = true;
    else if (step.kind !== 'format') return undefined;
  }
  const { width, height } = await checkHeader(input, label, POST_LIMITS);
  const geometry = resize
    ? checkedResizeGeometry(width, height, resize, POST_LIMITS)
    : { width, height, scaledWidth: width, scaledHeight: height, left: 0, top: 0 };
  // cover crops the scaled picture: not a padding sharp adds (the steps run on pixels instead).
  if (geometry.left < 0 || geometry.top < 0) return undefined;
  const size = pot ? { width: nextPowerOfTwo(geometry.width), height: nextPowerOfTwo(geometry.height) } : geometry;
  if (pot) checkSize(size.width, size.height, 'the power-of-two image', POST_LIMITS);
  const format = formatOf(steps);
  if (format === 'webp') checkEncoderSize(size, 'format: webp encodes');
  try {
    let pipeline = await readPipeline(input, POST_LIMITS);
    if (resize)
      pipeline = pipeline.resize({ width: geometry.scaledWidth, height: geometry.scaledHeight, fit: 'fill', kernel: resize.kernel });
    const padding = {
      top: geometry.top,
      left: geometry.left,
      bottom: size.height - geometry.top - geometry.scaledHeight,
      right: size.width - geometry.left - geometry.scaledWidth,
    };
    if (padding.top || padding.left || padding.bottom || padding.right)
      pipeline = pipeline.extend({ ...padding, background: { r: 0, g: 0, b: 0, alpha: 0 } });
    return { bytes: await encodePipeline(pipeline, size, format), width: size.width, height: size.height, format };
  } catch (error) {
    throw asImagingError(error, label, 'png', POST_LIMITS);
  }
}

async function runSteps(state: StepState, steps: readonly PostStep[]): Promise<StepState> {
  let dead = 0;
  for (const [index, step] of steps.entries()) {
    let before: RawImage | undefined = state.image;
    await runStep(state, step, steps.slice(index + 1));
    // The image before the step is garbage when the step made a new one: counted, and (once the
    // reference here is dropped) collected before a large image's next step (./collect.ts).
    if (state.image !== before) dead += before.data.length;
    before = undefined;
    if (dead >= POST_COLLECT_AFTER) {
      collectDeadPixels();
      dead = 0;
    }
  }
  return state;
}

/** Runs one step on `state`, which it updates: its image replaced (or changed in place) and what the step records. */
async function runStep(state: StepState, step: PostStep, later: readonly PostStep[]): Promise<void> {
  switch (step.kind) {
    case 'trim': {
      // The last step to change pixels: the encoder reads the picture inside the bounds (sharp's
      // extract on the decoded pixels), so no copy of it is made here; the same pixels, the same bytes.
      const bounds = later.every((next) => next.kind === 'format') ? opaqueBounds(state.image, step.threshold) : undefined;
      if (bounds) {
        state.area = bounds;
        state.trim = { ...bounds, sourceWidth: state.image.width, sourceHeight: state.image.height };
        return;
      }
      const result = trimImage(state.image, step.threshold);
      state.image = result.image;
      state.trim = result.trim;
      return;
    }
    case 'resize':
      state.image = await resizeImage(state.image, step, POST_LIMITS);
      return;
    case 'pot':
      state.image = padToPowerOfTwo(state.image);
      return;
    case 'palette':
      checkEncoderSize(state.image, 'palette quantises');
      // Usually the last step to change pixels: a PNG result is then the indexed PNG the quantiser
      // writes, so the pixels are quantised and encoded once. `extrude` or `bleed` may follow it
      // (parsePostSteps): the quantised pixels are then kept for them.
      if (state.format === 'png' && !later.some((next) => next.kind === 'extrude' || next.kind === 'bleed'))
        state.indexedPng = await quantiseToPng(state.image, step.colors, step.dither);
      else {
        state.image = await quantise(state.image, step.colors, step.dither);
        state.paletteColours = step.colors;
      }
      return;
    case 'format':
      return;
    case 'key':
      state.key = keyToAlpha(state.image, step);
      return;
    case 'extrude':
      state.image = extrudeImage(state.image, step.pixels);
      return;
    case 'bleed':
      bleedEdges(state.image, step.radius);
      // Transparent pixels now hold colours an indexed PNG's quantiser would drop: written RGBA.
      state.paletteColours = undefined;
      return;
    case 'slice':
      // applyPostStepsToFrames cuts; one image cannot hold several.
      throw new ImagingError('slice_failed', 'slice makes several images: they are made by applyPostStepsToFrames');
    default:
      throw new ImagingError('damaged', `unknown post step ${JSON.stringify(step satisfies never)}`);
  }
}

async function encodeResult({ image, area, trim, key, format, paletteColours, indexedPng }: StepState): Promise<PostResult> {
  // A palette step's image is written indexed: the quantiser's own PNG when no step changed it
  // after, else (extrude copied its pixels) encoded here from its palette.
  const indexed = indexedPng ?? (format === 'png' && paletteColours !== undefined ? encodeIndexedPng(image) : undefined);
  // A trim's area when the encoder cuts the picture out (runStep), else the whole image.
  const size = area ?? image;
  if (!indexed && format === 'webp') checkEncoderSize(size, 'format: webp encodes');
  const bytes = indexed ?? (await encodeImage(image, format, area));
  const warning = key && keyWarning(key);
  return {
    bytes,
    width: size.width,
    height: size.height,
    format,
    ...(trim ? { trim } : {}),
    ...(key ? { key } : {}),
    ...(warning ? { warnings: [warning] } : {}),
  };
}

/**
 * Dead pixels are collected after every 4 MiB one step list leaves behind (at the largest image,
 * after every step): libimagequant and libwebp then find the memory free
 * (test/slow/post-memory.test.ts). Small images never wait for a collection.
 */
const POST_COLLECT_AFTER = 4 * 1024 * 1024;

/** palette and lossless WebP hold the whole image several times over: refused past ENCODER_LIMITS, with what to do. */
function checkEncoderSize(image: { width: number; height: number }, what: string): void {
  const { width, height } = image;
  if (width * height <= ENCODER_LIMITS.maxPixels) return;
  throw new ImagingError(
    'too_large',
    `${what} at most ${ENCODER_LIMITS.maxPixels.toLocaleString('en-US')} pixels (its encoder holds the image several times over); this image is ${width}×${height}: resize it first`,
  );
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
