// PNGs for previews: decoded by the project's one decoder (src/files/png-decode.ts: every
// non-interlaced PNG, 1-16 bits, tRNS), its refusals said as a preview's; and encoded, filter none.
// Written here rather than pulled in as a dependency: a preview needs only this much, and the CLI's
// start-up and install stay as small as they are.
import { deflateSync } from 'node:zlib';
import { PNG_SIGNATURE } from '../../files/media.js';
import { pngChunk, pngHeader } from '../../files/png.js';
import { decodePng as decodeAnyPng, PngDecodeError } from '../../files/png-decode.js';
import { checkSize, PreviewError, type Pixels } from './image.js';

/** A PNG's pixels for a preview (any non-interlaced PNG; src/files/png-decode.ts), or a PreviewError saying why not. */
export function decodePng(bytes: Uint8Array): Pixels {
  try {
    const { width, height, data } = decodeAnyPng(bytes, { checkSize });
    return { width, height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
  } catch (error) {
    throw error instanceof PngDecodeError ? new PreviewError(error.message) : error;
  }
}

/** An 8-bit RGBA PNG of the pixels (filter none): how a GIF's first frame, or a shrunk image, is sent. */
export function encodePng(image: Pixels): Buffer {
  const rowBytes = image.width * 4 + 1;
  const raw = Buffer.alloc(rowBytes * image.height);
  for (let y = 0; y < image.height; y++) {
    raw.set(image.data.subarray(y * image.width * 4, (y + 1) * image.width * 4), y * rowBytes + 1);
  }
  const header = pngHeader(image.width, image.height, 8, 6); // 8-bit RGBA
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}
