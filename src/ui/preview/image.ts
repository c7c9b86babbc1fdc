// Decoded pixels, the one error type of the preview code, and the few pixel operations the
// encoders share. Everything here works on untrusted bytes: sizes are bounded before memory is
// allocated, and every failure is a PreviewError whose message becomes a one-line note.

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

/**
 * What the bytes are, from their signature (never the file name). Formats assetgen cannot decode
 * are named, so the note says why there is no preview.
 */
export function sniff(bytes: Uint8Array): Format {
  const ascii = (from: number, to: number): string => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 8 && ascii(1, 4) === 'PNG' && bytes[0] === 0x89) return 'png';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(ascii(0, 6))) return 'gif';
  const other =
    bytes[0] === 0xff && bytes[1] === 0xd8
      ? 'a JPEG image'
      : ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP'
        ? 'a WebP image'
        : ascii(4, 8) === 'ftyp'
          ? 'an MP4/MOV video'
          : bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3
            ? 'a WebM video'
            : undefined;
  throw new PreviewError(other ? `is ${other}; previews decode PNG and GIF only` : 'is not a PNG or GIF image');
}
