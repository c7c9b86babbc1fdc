// Decoded pixels, the one error type of the preview code, and the few pixel operations the
// encoders share. Everything here works on untrusted bytes: sizes are bounded before memory is
// allocated, and every failure is a PreviewError whose message becomes a one-line note.
import { sniffExtension } from '../../files/media.js';

/** 8-bit RGBA, row by row, no padding. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Why a file was not previewed; the message completes "Preview not shown: <file> …". */
export class PreviewError extends Error {
  override name = 'PreviewError';
}

/** Larger images are refused before decoding: 16 Mpx of RGBA is 64 MiB, already a lot for a preview. */
export const MAX_PIXELS = 16 * 1024 * 1024;
export const MAX_SIDE = 16_384;

export function checkSize(width: number, height: number): void {
  if (width < 1 || height < 1) throw new PreviewError('is an empty image');
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) {
    throw new PreviewError(`is too large to preview (${width}×${height})`);
  }
}

/**
 * Shrinks by a whole step (every n-th pixel) to fit maxWidth×maxHeight; never enlarges. Nearest
 * neighbour on purpose: game assets are mostly pixel art, which averaging would blur.
 */
export function downscale(image: Pixels, maxWidth: number, maxHeight: number): Pixels {
  const step = Math.max(1, Math.ceil(image.width / maxWidth), Math.ceil(image.height / maxHeight));
  if (step === 1) return image;
  const width = Math.ceil(image.width / step);
  const height = Math.ceil(image.height / step);
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * step * image.width + x * step) * 4;
      data.set(image.data.subarray(from, from + 4), (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

export type Format = 'png' | 'gif';

/** The formats assetgen saves that previews do not decode, named for the note. */
const UNDECODED: Readonly<Record<string, string>> = {
  '.jpg': 'a JPEG image',
  '.webp': 'a WebP image',
  '.mp4': 'an MP4/MOV video',
  '.mov': 'an MP4/MOV video',
  '.webm': 'a WebM video',
};

/**
 * What the bytes are, from their signature (never the file name). Formats assetgen cannot decode
 * are named, so the note says why there is no preview.
 */
export function sniff(bytes: Uint8Array): Format {
  const extension = sniffExtension(bytes);
  if (extension === '.png') return 'png';
  if (extension === '.gif') return 'gif';
  const other = extension && Object.hasOwn(UNDECODED, extension) ? UNDECODED[extension] : undefined;
  throw new PreviewError(other ? `is ${other}; previews decode PNG and GIF only` : 'is not a PNG or GIF image');
}
