// The PNG container, written in one place: a chunk with its CRC, and the header (the signature is
// with the other formats' magic bytes, media.ts). The mock's pictures and the previews'
// re-encoded frames are both built from these.
import { crc32 } from 'node:zlib';

/** One chunk: length, type, body, and the CRC of type + body. */
export function pngChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body, crc32(head.subarray(4))));
  return Buffer.concat([head, body, crc]);
}

/** The 13-byte IHDR body (no interlace, default compression and filter methods). */
export function pngHeader(width: number, height: number, depth: number, colourType: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = depth;
  header[9] = colourType;
  return header;
}
