// The assets are real files: a PNG decoded down to its pixels, and a GIF decoded frame by frame
// (LZW included), which is what a player does.
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderPng, renderVideo } from '../../src/mock/media.js';

function decodePng(png: Buffer): { width: number; height: number; colours: number } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[9]]).toEqual([8, 2]); // 8-bit RGB
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe(height * (1 + width * 3));
  const colours = new Set<string>();
  for (let y = 0; y < height; y++) {
    expect(raw[y * (1 + width * 3)]).toBe(0);
    for (let x = 0; x < width; x++) colours.add(raw.subarray(y * (1 + width * 3) + 1 + x * 3, y * (1 + width * 3) + 4 + x * 3).toString('hex'));
  }
  return { width, height, colours: colours.size };
}

/** A minimal GIF decoder: header, colour table, extensions, image descriptors, LZW. */
function decodeGif(gif: Buffer): { width: number; height: number; frames: Uint8Array[] } {
  expect(gif.toString('ascii', 0, 6)).toBe('GIF89a');
  const width = gif.readUInt16LE(6);
  const height = gif.readUInt16LE(8);
  const packed = gif[10]!;
  let offset = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
  const frames: Uint8Array[] = [];
  const readBlocks = (): Buffer => {
    const parts: Buffer[] = [];
    for (let size = gif[offset++]!; size > 0; size = gif[offset++]!) {
      parts.push(gif.subarray(offset, offset + size));
      offset += size;
    }
    return Buffer.concat(parts);
  };
  for (;;) {
    const marker = gif[offset++];
    if (marker === 0x3b) break;
    if (marker === 0x21) {
      offset++; // label
      readBlocks();
      continue;
    }
    expect(marker).toBe(0x2c);
    const w = gif.readUInt16LE(offset + 4);
    const h = gif.readUInt16LE(offset + 6);
    offset += 9;
    const minCodeSize = gif[offset++]!;
    frames.push(lzwDecode(readBlocks(), minCodeSize, w * h));
  }
  return { width, height, frames };
}

function lzwDecode(data: Buffer, minCodeSize: number, pixelCount: number): Uint8Array {
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  let codeSize = minCodeSize + 1;
  let dictionary: number[][] = [];
  const reset = (): void => {
    dictionary = Array.from({ length: clear + 2 }, (_, i) => [i]);
    codeSize = minCodeSize + 1;
  };
  reset();
  const out: number[] = [];
  let previous: number[] | undefined;
  let bitPos = 0;
  for (;;) {
    let code = 0;
    for (let i = 0; i < codeSize; i++, bitPos++) code |= ((data[bitPos >> 3]! >> (bitPos & 7)) & 1) << i;
    if (code === clear) {
      reset();
      previous = undefined;
      continue;
    }
    if (code === end) break;
    let entry = dictionary[code];
    if (!entry) {
      expect(previous).toBeDefined();
      entry = [...previous!, previous![0]!];
    }
    out.push(...entry);
    if (previous) dictionary.push([...previous, entry[0]!]);
    previous = entry;
    if (dictionary.length === 1 << codeSize && codeSize < 12) codeSize++;
  }
  expect(out.length).toBe(pixelCount);
  return Uint8Array.from(out);
}

describe('generated images', () => {
  it('are real PNGs with several colours, deterministic and prompt-dependent', () => {
    const sword = renderPng('sprite-artist', 'rusty sword');
    expect(decodePng(sword)).toMatchObject({ width: 128, height: 128 });
    expect(decodePng(sword).colours).toBeGreaterThanOrEqual(3);
    expect(renderPng('sprite-artist', 'rusty sword').equals(sword)).toBe(true);
    expect(renderPng('sprite-artist', 'golden shield').equals(sword)).toBe(false);
    expect(renderPng('tile-smith', 'rusty sword').equals(sword)).toBe(false);
  });
});

describe('generated videos', () => {
  it('are animated GIFs whose every frame decodes fully, and the frames differ', () => {
    const gif = renderVideo('motion-director', 'torch flicker');
    const { width, height, frames } = decodeGif(gif);
    expect([width, height]).toEqual([96, 96]);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(Buffer.from(frames[0]!).equals(Buffer.from(frames[3]!))).toBe(false);
    expect(renderVideo('motion-director', 'torch flicker').equals(gif)).toBe(true);
  });
});
