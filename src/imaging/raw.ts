// Images as plain RGBA pixels (8 bits a channel, not premultiplied) between steps: decoding from and
// encoding to files goes through sharp, with limits (a sheet's plain PNG frames are decoded by
// src/files/png-decode.ts, to the same pixels); cropping, padding and copying are exact byte
// copies here, so no step adds a colour it was not asked to.
import { deflateSync } from 'node:zlib';
import { PNG_SIGNATURE } from '../files/media.js';
import { decodePng } from '../files/png-decode.js';
import { pngChunk, pngHeader } from '../files/png.js';
import { ImagingError } from './errors.js';
import { IMAGE_LIMITS, type ImageLimits, type OutputFormat } from './limits.js';
import type { RawImage, Rect } from './records.js';
import { loadSharp } from './sharp.js';

export { IMAGE_LIMITS, type OutputFormat, type RawImage, type Rect };

/**
 * Bounds on every image read or made, so a hostile file (a PNG header claiming 100,000 × 100,000) is
 * refused before its pixels are allocated: 64 megapixels is 256 MiB as RGBA.
 */

/** The formats post steps and atlases read: the still images the service sends. */

/** Fixed encoder settings: the same pixels give the same bytes (sharp writes no metadata unless asked). */
export const PNG_OPTIONS = { compressionLevel: 9, adaptiveFiltering: false, progressive: false } as const;
const WEBP_OPTIONS = { lossless: true, effort: 4, exact: false } as const;
/** WebP's own bound on a side. */
const WEBP_MAX_SIDE = 16_383;

export function checkSize(width: number, height: number, what: string, limits: ImageLimits = IMAGE_LIMITS): void {
  if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels) {
    throw new ImagingError(
      'too_large',
      `${what} would be ${width}×${height} pixels: the limit is ${limits.maxSide} a side and ${limits.maxPixels.toLocaleString('en-US')} pixels`,
    );
  }
}

export function blank(width: number, height: number): RawImage {
  checkSize(width, height, 'an image');
  return { data: Buffer.alloc(width * height * 4), width, height };
}

/** The formats post steps and atlases read: the still images the service sends. */
export const INPUT_FORMATS: readonly string[] = ['png', 'jpeg', 'webp', 'gif'];

/** What a PNG's chunks before its pixels say: its size and pixel format, and whether it carries a colour profile. */
export interface PngHeader {
  width: number;
  height: number;
  depth: number;
  /** 6: RGBA; 2: RGB; 3: indexed; 0 and 4: grey. */
  colourType: number;
  /** An iCCP chunk: sharp may convert its colours. */
  profile: boolean;
}

/**
 * A PNG's header read here, no decoder run (undefined when the bytes are not a PNG with a whole
 * IHDR): the chunks are walked up to the first IDAT, each within the bytes.
 */
export function readPngHeader(bytes: Buffer): PngHeader | undefined {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  const header = { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), depth: bytes[24], colourType: bytes[25], profile: false };
  for (let offset = 8; offset + 8 <= bytes.length; ) {
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (type === 'IDAT') break;
    if (type === 'iCCP') header.profile = true;
    offset += 12 + bytes.readUInt32BE(offset);
  }
  return header;
}

/** sharp's options for every image read: the pixel bound checked on the header, broken files refused, one frame. */
const readOptions = (limits: ImageLimits) => ({ limitInputPixels: limits.maxPixels, failOn: 'error', animated: false }) as const;

/**
 * Checks an image's format and size from its header, before any pixel is decoded: a PNG's header
 * read here (no second sharp pipeline for it), other formats' from sharp's metadata. Its size.
 */
export async function checkHeader(
  bytes: Buffer,
  label = 'the image',
  limits: ImageLimits = IMAGE_LIMITS,
): Promise<{ width: number; height: number; png?: PngHeader }> {
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) throw new ImagingError('not_an_image', `${label} is empty`);
  const png = readPngHeader(bytes);
  if (png) {
    // The same refusal sharp's pixel limit gives (below), said before it is asked.
    if (png.width * png.height > limits.maxPixels)
      throw new ImagingError('too_large', `${label} has more than ${limits.maxPixels.toLocaleString('en-US')} pixels`);
    checkSize(png.width, png.height, label, limits);
    return { width: png.width, height: png.height, png };
  }
  const sharp = await loadSharp();
  let format: string | undefined;
  try {
    const metadata = await sharp(bytes, readOptions(limits)).metadata();
    format = metadata.format;
    if (!INPUT_FORMATS.includes(format)) {
      throw new ImagingError('unsupported_format', `${label} is ${format}: post steps and atlases take ${INPUT_FORMATS.join(', ')}`);
    }
    checkSize(metadata.width, metadata.height, label, limits);
    return { width: metadata.width, height: metadata.height };
  } catch (error) {
    throw asImagingError(error, label, format, limits);
  }
}

/**
 * Reads PNG, JPEG, WebP or GIF (its first frame) bytes into RGBA pixels within `limits`; anything
 * else is an ImagingError. With `onMainThread`, a plain PNG is decoded on this thread (src/files/png-decode.ts):
 * for a sheet's thousands of frames, whose decodes on sharp's threads leave glibc's per-thread
 * arenas holding freed memory; a post step's one large image keeps sharp's threads, in parallel.
 */
export async function decodeImage(
  bytes: Buffer,
  label = 'the image',
  limits: ImageLimits = IMAGE_LIMITS,
  { onMainThread = false }: { onMainThread?: boolean } = {},
): Promise<RawImage> {
  // The header first (cheap): the format and the size are checked before any pixel is decoded.
  const { png } = await checkHeader(bytes, label, limits);
  const plain =
    onMainThread && png ? decodePng(bytes, { plainOnly: true, checkSize: (w, h) => checkSize(w, h, label, limits) }) : undefined;
  if (plain) return plain;
  try {
    const { data, info } = await (await readPipeline(bytes, limits)).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new ImagingError('damaged', `${label} decoded to ${info.channels} channels, not RGBA`);
    return { data, width: info.width, height: info.height };
  } catch (error) {
    throw asImagingError(error, label, png ? 'png' : undefined, limits);
  }
}

/** A sharp pipeline reading checked bytes as 8-bit sRGB RGBA (sRGB first, so grey and 16-bit inputs come out as RGBA too). */
export async function readPipeline(bytes: Buffer, limits: ImageLimits = IMAGE_LIMITS) {
  return (await loadSharp())(bytes, readOptions(limits)).toColourspace('srgb').ensureAlpha();
}

/** sharp's errors, said for people: its messages name no file. */
export function asImagingError(error: unknown, label: string, format: string | undefined, limits: ImageLimits): ImagingError {
  if (error instanceof ImagingError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/unsupported image format/i.test(message)) return new ImagingError('not_an_image', `${label} is not an image sharp can read`);
  if (/pixel limit/i.test(message)) {
    return new ImagingError('too_large', `${label} has more than ${limits.maxPixels.toLocaleString('en-US')} pixels`);
  }
  const reason = message.split('\n')[0].slice(0, 200);
  return new ImagingError('damaged', `${label}${format ? ` (${format})` : ''} cannot be decoded: ${reason}`);
}

/** Encodes RGBA pixels (those inside `area`, when given: cut out by sharp, no copy made): PNG (RGBA, zlib level 9) or lossless WebP. */
export async function encodeImage(image: RawImage, format: OutputFormat, area?: Rect): Promise<Buffer> {
  let pipeline = (await loadSharp())(image.data, { raw: { width: image.width, height: image.height, channels: 4 } });
  if (area && (area.width !== image.width || area.height !== image.height))
    pipeline = pipeline.extract({ left: area.left, top: area.top, width: area.width, height: area.height });
  return encodePipeline(pipeline, area ?? image, format);
}

/**
 * Encodes what a sharp pipeline makes (an image of `size`, 8-bit RGBA) with encodeImage's settings.
 * A PNG's density is written as for pixels from memory (pHYs: 1 pixel a millimetre) whatever the
 * file the pipeline read said, so the same pixels give the same bytes by either road.
 */
export async function encodePipeline(
  pipeline: ReturnType<Awaited<ReturnType<typeof loadSharp>>>,
  size: { width: number; height: number },
  format: OutputFormat,
): Promise<Buffer> {
  if (format === 'webp' && (size.width > WEBP_MAX_SIDE || size.height > WEBP_MAX_SIDE)) {
    throw new ImagingError('too_large', `a WebP is at most ${WEBP_MAX_SIDE} pixels a side; this image is ${size.width}×${size.height}`);
  }
  return format === 'png' ? withRawDensity(await pipeline.png(PNG_OPTIONS).toBuffer()) : pipeline.webp(WEBP_OPTIONS).toBuffer();
}

/** The pHYs libvips writes for pixels from memory: 1,000 pixels a metre each way. */
const RAW_DENSITY = pngChunk('pHYs', Buffer.from([0, 0, 0x03, 0xe8, 0, 0, 0x03, 0xe8, 1]));

/** A PNG (as libvips writes it: IHDR first) with its pHYs chunk replaced by RAW_DENSITY (added after IHDR if it has none). */
function withRawDensity(png: Buffer): Buffer {
  const afterHeader = 33;
  for (let offset = afterHeader; offset + 8 <= png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    if (type === 'pHYs') {
      const chunk = png.subarray(offset, offset + 12 + length);
      return chunk.equals(RAW_DENSITY) ? png : Buffer.concat([png.subarray(0, offset), RAW_DENSITY, png.subarray(offset + 12 + length)]);
    }
    if (type === 'IDAT') break;
    offset += 12 + length;
  }
  return Buffer.concat([png.subarray(0, afterHeader), RAW_DENSITY, png.subarray(afterHeader)]);
}

/**
 * An indexed PNG (a PLTE chunk, and tRNS for the entries not opaque) of an image of at most 256
 * colours, written here: exactly these pixels, no quantiser. The palette is in order of first
 * appearance, translucent entries first (so tRNS stays short); the smallest bit depth that holds
 * it; rows unfiltered and zlib level 9, as PNG_OPTIONS writes: the same pixels give the same bytes.
 */
export function encodeIndexedPng(image: RawImage): Buffer {
  const { data, width, height } = image;
  const seen = new Map<number, number>();
  for (let offset = 0; offset < data.length; offset += 4) {
    const value = data.readUInt32BE(offset);
    if (!seen.has(value)) {
      if (seen.size === 256) throw new ImagingError('damaged', 'an indexed PNG holds at most 256 colours');
      seen.set(value, seen.size);
    }
  }
  const colours = [...seen.keys()];
  const ordered = [...colours.filter((value) => (value & 0xff) !== 0xff), ...colours.filter((value) => (value & 0xff) === 0xff)];
  const index = new Map(ordered.map((value, at) => [value, at]));
  const depth = ordered.length <= 2 ? 1 : ordered.length <= 4 ? 2 : ordered.length <= 16 ? 4 : 8;
  const perByte = 8 / depth;
  const rowBytes = 1 + Math.ceil(width / perByte);
  // Filter byte 0 (none) starts each row; indices packed most significant bits first.
  const rows = Buffer.alloc(rowBytes * height);
  let last = -1;
  let lastIndex = 0;
  for (let y = 0; y < height; y++) {
    const row = y * rowBytes + 1;
    for (let x = 0; x < width; x++) {
      const value = data.readUInt32BE((y * width + x) * 4);
      if (value !== last) [last, lastIndex] = [value, index.get(value)!];
      rows[row + Math.floor(x / perByte)] |= lastIndex << (8 - depth - (x % perByte) * depth);
    }
  }
  const palette = Buffer.alloc(ordered.length * 3);
  const alphas = Buffer.alloc(ordered.filter((value) => (value & 0xff) !== 0xff).length);
  ordered.forEach((value, at) => {
    palette.writeUIntBE(value >>> 8, at * 3, 3);
    if (at < alphas.length) alphas[at] = value & 0xff;
  });
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', pngHeader(width, height, depth, 3)),
    pngChunk('PLTE', palette),
    ...(alphas.length ? [pngChunk('tRNS', alphas)] : []),
    pngChunk('IDAT', deflateSync(rows, { level: PNG_OPTIONS.compressionLevel })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The smallest rectangle holding every pixel whose alpha is above `threshold`; undefined when there is none.
 * Rows are read from the top and from the bottom until one holds such a pixel; each row between them
 * only up to the left and right edges found so far (a picture's inside is not read).
 */
export function opaqueBounds(image: RawImage, threshold = 0): Rect | undefined {
  const { data, width, height } = image;
  const rowHolds = (y: number): boolean => {
    for (let offset = y * width * 4 + 3, end = offset + width * 4; offset < end; offset += 4) if (data[offset] > threshold) return true;
    return false;
  };
  let top = 0;
  while (top < height && !rowHolds(top)) top++;
  if (top === height) return undefined;
  let bottom = height - 1;
  while (!rowHolds(bottom)) bottom--;
  let left = width;
  let right = -1;
  for (let y = top; y <= bottom; y++) {
    const alpha = y * width * 4 + 3;
    for (let x = 0; x < left; x++)
      if (data[alpha + x * 4] > threshold) {
        left = x;
        break;
      }
    for (let x = width - 1; x > right; x--)
      if (data[alpha + x * 4] > threshold) {
        right = x;
        break;
      }
  }
  return { left, top, width: right - left + 1, height: bottom - top + 1 };
}

/** The pixels inside `rect` (which must lie inside the image). */
export function crop(image: RawImage, rect: Rect): RawImage {
  const out = blank(rect.width, rect.height);
  for (let y = 0; y < rect.height; y++) {
    const from = ((rect.top + y) * image.width + rect.left) * 4;
    image.data.copy(out.data, y * rect.width * 4, from, from + rect.width * 4);
  }
  return out;
}

/**
 * Copies `source` onto `target` with its top-left corner at (left, top), either of which may be
 * negative; what falls outside the target is cut off. Pixels are replaced, not blended.
 */
export function blit(source: RawImage, target: RawImage, left: number, top: number): void {
  const x0 = Math.max(0, left);
  const x1 = Math.min(target.width, left + source.width);
  if (x1 <= x0) return;
  for (let y = Math.max(0, top); y < Math.min(target.height, top + source.height); y++) {
    const from = ((y - top) * source.width + (x0 - left)) * 4;
    source.data.copy(target.data, (y * target.width + x0) * 4, from, from + (x1 - x0) * 4);
  }
}

/** The distinct RGBA values of an image, counted up to `stopAfter`. */
export function countColours(image: RawImage, stopAfter = Infinity): number {
  const seen = new Set<number>();
  for (let offset = 0; offset < image.data.length && seen.size <= stopAfter; offset += 4) seen.add(image.data.readUInt32BE(offset));
  return seen.size;
}
