// The imaging facts the manifest checks against: sizes, ranges and names, with no image code behind
// them. The pipeline reads a manifest on every plan and dry run; importing these from atlas.ts or
// resize.ts would load the whole of src/imaging there (sharp itself is loaded on first use anyway).

export interface ImageLimits {
  maxSide: number;
  maxPixels: number;
}

/** The largest image read or made: a side, and pixels in all. */
export const IMAGE_LIMITS: ImageLimits = { maxSide: 16_384, maxPixels: 8_192 * 8_192 };

/**
 * The largest image post steps read, and the largest a step makes (a resize, a pot): 2,097,152
 * pixels (2048×1024, any shape, each side within maxSide), so the sizes image services return
 * (1536×1024, 1792×1024 and their portraits) and the power-of-two pages `pot` makes of them are
 * taken. At this size every step but the two below keeps a build within 150 MiB of peak memory
 * (issue 30; test/slow/post-memory.test.ts).
 */
export const POST_LIMITS: ImageLimits = { maxSide: 16_384, maxPixels: 2_048 * 1_024 };

/**
 * The largest image `palette` quantises and `format: webp` encodes: 1,048,576 pixels (1,024², any
 * shape). libimagequant (at effort 10) and libwebp's lossless encoder hold the whole image several
 * times over, about 40 bytes a pixel on a photo-like image: on top of the CLI's own ~87 MiB
 * (node, the CLI, sharp's libraries), 1.5 megapixels took 155 MiB and 2 megapixels 174. At this
 * bound the build stays within 150 MiB; resize first (`resize` then `palette`) for a larger picture.
 */
export const ENCODER_LIMITS: ImageLimits = { maxSide: 16_384, maxPixels: 1_024 * 1_024 };

/**
 * An image an agent is shown inline (an MCP image content, a contact sheet): at most this many bytes
 * and this many pixels a side. Larger saved images are downscaled to fit before they are sent.
 */
export const INLINE_IMAGE_LIMITS = { maxBytes: 1024 * 1024, maxSide: 768 } as const;

/**
 * An atlas: its frames, their names and options; a frame's pixels (2048², 16 MiB as RGBA: a sheet
 * decodes one frame at a time, and stays within its memory bound only if a frame does).
 */
export const ATLAS_LIMITS = { maxPadding: 64, maxExtrude: 32, maxFrames: 10_000, maxNameLength: 256, maxFramePixels: 2048 * 2048 } as const;

/**
 * Clean edges (edges.ts): `extrude` up to the atlas's own bound; `bleed` colours transparent pixels
 * up to maxRadius away (one pass over the rows each); `key`'s distances are 0-255, with these defaults.
 */
export const EDGE_LIMITS = {
  maxExtrude: ATLAS_LIMITS.maxExtrude,
  bleed: { defaultRadius: 8, maxRadius: 64 },
  key: { defaultTolerance: 32, defaultSoftness: 64 },
} as const;

/**
 * `slice`: the most frames one image is cut into (a grid's columns × rows, or the cells its gaps
 * make), and the widest gap or tolerance it takes. Each frame is its own output file.
 */
export const SLICE_LIMITS = { maxFrames: 1_024, maxGrid: 256, maxTolerance: 255 } as const;
/** Colours are counted up to this many (take-metrics.ts); past it the count says "at least". A `colors` check's max is at most this. */
export const COLOUR_COUNT_CAP = 4096;

/** Bits in `assetgen check`'s perceptual hash (check-metrics.ts): an `outlier` check's max is at most this. */
export const HASH_BITS = 64;

/** `palette: N`: N from MIN_COLOURS to MAX_COLOURS. */
export const MIN_COLOURS = 2;
export const MAX_COLOURS = 256;

export const FITS = ['contain', 'cover', 'fill', 'inside', 'outside'] as const;
export type Fit = (typeof FITS)[number];
export const KERNELS = ['nearest', 'linear', 'cubic', 'mitchell', 'lanczos2', 'lanczos3', 'mks2013', 'mks2021'] as const;
export type Kernel = (typeof KERNELS)[number];

export type OutputFormat = 'png' | 'webp';

/**
 * Why an atlas option is out of range, or undefined: one rule for the manifest's `sheet:` (which
 * reports it at the value's line and column) and for packAtlas (which throws it).
 */
export function atlasOptionProblem(name: 'padding' | 'extrude' | 'maxSize', value: unknown): string | undefined {
  if (name === 'maxSize') {
    const size = Number.isInteger(value) ? (value as number) : 0;
    return size >= 1 && size <= IMAGE_LIMITS.maxSide && (size & (size - 1)) === 0
      ? undefined
      : `must be a power of two up to ${IMAGE_LIMITS.maxSide}`;
  }
  const max = name === 'padding' ? ATLAS_LIMITS.maxPadding : ATLAS_LIMITS.maxExtrude;
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max
    ? undefined
    : `must be a whole number from 0 to ${max}`;
}
