// The PNG container, written in one place: the signature and a chunk with its CRC. The mock's
// pictures and the previews' re-encoded frames are both built from these.
import { crc32 } from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

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
