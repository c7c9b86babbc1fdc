// The first frame of a GIF, as RGBA on the GIF's logical screen: what a preview shows of an
// animation (the bundled mock saves its "videos" as animated GIFs). Reads the colour tables, the
// graphic control extension (transparency), the first image descriptor (interlaced or not) and its
// LZW data; every other block is skipped. Untrusted input: lengths are checked, codes validated.
import { sniffExtension } from '../../files/media.js';
import { checkSize, PreviewError, type Pixels } from './image.js';

export function decodeGifFirstFrame(bytes: Uint8Array): Pixels {
  if (sniffExtension(bytes) !== '.gif') throw new PreviewError('is not a GIF image');
  const reader = new Reader(bytes);
  reader.take(6); // the signature
  let width = reader.u16();
  let height = reader.u16();
  const flags = reader.byte();
  reader.take(2); // background colour index, pixel aspect ratio
  const globalTable = flags & 0x80 ? reader.take(3 << ((flags & 7) + 1)) : undefined;
  let transparent = -1;
  for (;;) {
    const block = reader.byte();
    if (block === 0x3b) throw new PreviewError('is a GIF without any frame');
    if (block === 0x21) {
      const label = reader.byte();
      const body = reader.subBlocks();
      // Graphic control extension: bit 0 of its first byte says byte 3 is the transparent index.
      if (label === 0xf9 && body.length >= 4 && body[0] & 1) transparent = body[3];
      continue;
    }
    if (block !== 0x2c) throw new PreviewError(`is a corrupt GIF (block 0x${block.toString(16)})`);
    const left = reader.u16();
    const top = reader.u16();
    const frameWidth = reader.u16();
    const frameHeight = reader.u16();
    const frameFlags = reader.byte();
    const table = frameFlags & 0x80 ? reader.take(3 << ((frameFlags & 7) + 1)) : globalTable;
    if (!table) throw new PreviewError('is a corrupt GIF (no colour table)');
    const minCodeSize = reader.byte();
    if (minCodeSize < 2 || minCodeSize > 8) throw new PreviewError('is a corrupt GIF (bad LZW code size)');
    // A logical screen of 0×0 (seen in the wild) means "as large as the frame".
    if (width === 0 || height === 0) [width, height] = [left + frameWidth, top + frameHeight];
    checkSize(width, height);
    checkSize(frameWidth, frameHeight);
    const indices = lzwDecode(reader.subBlocks(), minCodeSize, frameWidth * frameHeight);
    const rows = frameFlags & 0x40 ? interlacedRows(frameHeight) : undefined;
    const data = new Uint8Array(width * height * 4);
    for (let row = 0; row < frameHeight; row++) {
      const y = top + (rows ? rows[row] : row);
      if (y >= height) continue;
      for (let x = 0; x < frameWidth && left + x < width; x++) {
        const index = indices[row * frameWidth + x];
        // The transparent index, and an index past the table (tolerated as most viewers do), stay clear.
        if (index === transparent || index * 3 + 2 >= table.length) continue;
        const out = (y * width + left + x) * 4;
        data.set(table.subarray(index * 3, index * 3 + 3), out);
        data[out + 3] = 255;
      }
    }
    return { width, height, data };
  }
}

/** Which image row each stored row is, for the four passes of an interlaced GIF. */
function interlacedRows(height: number): number[] {
  const rows: number[] = [];
  for (const [start, step] of [
    [0, 8],
    [4, 8],
    [2, 4],
    [1, 2],
  ]) {
    for (let y = start; y < height; y += step) rows.push(y);
  }
  return rows;
}

/**
 * Variable-width LZW as GIF uses it (codes up to 12 bits, no early change). A stream that ends
 * before the frame is full leaves the rest transparent (index 0xffff), as browsers do.
 */
export function lzwDecode(data: Uint8Array, minCodeSize: number, count: number): Uint16Array {
  const out = new Uint16Array(count).fill(0xffff);
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let code = 0; code < clear; code++) [prefix[code], suffix[code], first[code], length[code]] = [-1, code, code, 1];
  let codeSize = minCodeSize + 1;
  let next = end + 1;
  let previous = -1;
  let accumulator = 0;
  let bits = 0;
  let input = 0;
  let written = 0;
  while (written < count) {
    while (bits < codeSize) {
      if (input >= data.length) return out;
      accumulator |= data[input++] << bits;
      bits += 8;
    }
    const code = accumulator & ((1 << codeSize) - 1);
    accumulator >>>= codeSize;
    bits -= codeSize;
    if (code === clear) {
      [codeSize, next, previous] = [minCodeSize + 1, end + 1, -1];
      continue;
    }
    if (code === end) break;
    if (previous === -1) {
      if (code > clear) throw new PreviewError('is a corrupt GIF (bad LZW data)');
    } else {
      if (code > next || (code === next && next >= 4096)) throw new PreviewError('is a corrupt GIF (bad LZW data)');
      if (next < 4096) {
        prefix[next] = previous;
        suffix[next] = code === next ? first[previous] : first[code];
        first[next] = first[previous];
        length[next] = length[previous] + 1;
        next++;
        if (next === 1 << codeSize && codeSize < 12) codeSize++;
      }
    }
    // Write the code's string backwards from its last byte, clipped to the frame.
    let at = code;
    for (let i = length[code] - 1; i >= 0; i--) {
      if (written + i < count) out[written + i] = suffix[at];
      at = prefix[at];
    }
    written += length[code];
    previous = code;
  }
  return out;
}

/** Bounds-checked reading: running off the end is "truncated", never an exception of another kind. */
class Reader {
  #offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  take(count: number): Uint8Array {
    if (this.#offset + count > this.bytes.length) throw new PreviewError('is a truncated GIF');
    this.#offset += count;
    return this.bytes.subarray(this.#offset - count, this.#offset);
  }
  byte(): number {
    return this.take(1)[0];
  }
  u16(): number {
    const [low, high] = this.take(2);
    return low | (high << 8);
  }
  /** Data sub-blocks (a length byte, then that many bytes) up to the zero-length terminator. */
  subBlocks(): Uint8Array {
    const parts: Uint8Array[] = [];
    for (let size = this.byte(); size !== 0; size = this.byte()) parts.push(this.take(size));
    return Buffer.concat(parts);
  }
}
