// The mock's video: an animated GIF (a playable animation; the mock has no video encoder, and a GIF
// is decoded by every browser and image viewer) of the prompt's pixel-art sprite. Deterministic.
import { picture } from './pixel-art.js';
import { cached } from './render-cache.js';

export const VIDEO_SIZE = 96;
export const VIDEO_CONTENT_TYPE = 'image/gif';
export const VIDEO_EXTENSION = '.gif';

/**
 * LZW for GIF without a growing dictionary: a clear code every few codes keeps the code size
 * fixed. Larger than optimal, and trivially correct for every decoder.
 */
function lzwUncompressed(indices: Uint8Array, minCodeSize: number): Buffer {
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  const codeSize = minCodeSize + 1;
  const bytes: number[] = [];
  let accumulator = 0;
  let bits = 0;
  const emit = (code: number): void => {
    accumulator |= code << bits;
    bits += codeSize;
    while (bits >= 8) {
      bytes.push(accumulator & 0xff);
      accumulator >>>= 8;
      bits -= 8;
    }
  };
  // After a clear, a decoder adds one entry per code from the second on; stay below 2^codeSize.
  const codesPerClear = (1 << codeSize) - clear - 4;
  for (let i = 0; i < indices.length; i++) {
    if (i % codesPerClear === 0) emit(clear);
    emit(indices[i]);
  }
  emit(end);
  if (bits > 0) bytes.push(accumulator & 0xff);
  // Data sub-blocks of at most 255 bytes, then a zero-length terminator.
  const blocks: number[] = [minCodeSize];
  for (let i = 0; i < bytes.length; i += 255) {
    const part = bytes.slice(i, i + 255);
    blocks.push(part.length, ...part);
  }
  blocks.push(0);
  return Buffer.from(blocks);
}

/** A looping 96×96 animated GIF (12 frames): the prompt's sprite bobbing over a scrolling floor; each variation another sprite. */
export function renderVideo(agentId: string, prompt: string, frames = 12, variation = 0): Buffer {
  return cached(`gif\u0000${agentId}\u0000${prompt}\u0000${frames}\u0000${variation}`, () => drawVideo(agentId, prompt, frames, variation));
}

function drawVideo(agentId: string, prompt: string, frames: number, variation: number): Buffer {
  const { colours, grid: sprite } = picture(`video\u0000${agentId}\u0000${prompt}`, 'sprite', variation);
  const colourTable = Buffer.alloc(8 * 3); // 8 entries: 2^(2+1)
  colours.forEach((colour, i) => colourTable.set(colour, i * 3));
  const scale = 4;
  const parts: Buffer[] = [];
  const screen = Buffer.alloc(13);
  screen.write('GIF89a', 0, 'ascii');
  screen.writeUInt16LE(VIDEO_SIZE, 6);
  screen.writeUInt16LE(VIDEO_SIZE, 8);
  screen[10] = 0x80 | (2 << 4) | 2; // global colour table, 3-bit colour resolution, 8 entries
  parts.push(screen, colourTable);
  // NETSCAPE2.0 application extension: loop forever.
  parts.push(Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'ascii'), 0x03, 0x01, 0x00, 0x00, 0x00]));
  for (let frame = 0; frame < frames; frame++) {
    const pixels = new Uint8Array(VIDEO_SIZE * VIDEO_SIZE);
    const bob = Math.round(Math.sin((frame / frames) * Math.PI * 2) * 4);
    const floorY = VIDEO_SIZE - 16;
    for (let y = 0; y < VIDEO_SIZE; y++) {
      for (let x = 0; x < VIDEO_SIZE; x++) {
        let index = 0;
        if (y >= floorY) index = (x + frame * 4) % 16 < 8 ? 1 : 2;
        const sx = Math.floor((x - 16) / scale);
        const sy = Math.floor((y - 8 - bob) / scale);
        const value = sprite[sy]?.[sx];
        if (x >= 16 && value !== undefined && value !== 0) index = value;
        pixels[y * VIDEO_SIZE + x] = index;
      }
    }
    // Graphic control extension: 8/100 s per frame.
    parts.push(Buffer.from([0x21, 0xf9, 0x04, 0x00, 8, 0, 0x00, 0x00]));
    const descriptor = Buffer.alloc(10);
    descriptor[0] = 0x2c;
    descriptor.writeUInt16LE(VIDEO_SIZE, 5);
    descriptor.writeUInt16LE(VIDEO_SIZE, 7);
    parts.push(descriptor, lzwUncompressed(pixels, 3));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}
