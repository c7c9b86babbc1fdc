// An 8-bit RGBA PNG written as its rows are made, so a large image (an atlas page) is never whole in
// memory: the caller gives bands of rows, each row its filter byte (0, none) then its pixels, and
// gets the file's bytes back in pieces. Fixed settings (zlib level 9, no filtering, no metadata),
// so the same rows give the same bytes.
import { once } from 'node:events';
import { createDeflate } from 'node:zlib';
import { PNG_SIGNATURE } from '../files/media.js';
import { pngChunk, pngHeader } from '../files/png.js';

/** Bytes of compressed data per IDAT chunk. */
const IDAT_BYTES = 1 << 16;

export async function* pngStream(width: number, height: number, bands: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', pngHeader(width, height, 8, 6))]);
  const deflate = createDeflate({ level: 9, chunkSize: IDAT_BYTES });
  // Rows go in while compressed data comes out; a band that throws ends the stream with its error.
  const feeding = (async () => {
    for await (const band of bands) if (!deflate.write(band)) await once(deflate, 'drain');
    deflate.end();
  })().catch((error: unknown) => deflate.destroy(error as Error));
  for await (const data of deflate) yield pngChunk('IDAT', data as Buffer);
  await feeding;
  yield pngChunk('IEND', Buffer.alloc(0));
}
