// The PNGs assetgen meets most (the service's and its own: 8-bit RGB or RGBA, or a palette; not
// interlaced, no colour profile) decoded here, on the main thread, to the same bytes sharp gives.
// Why not sharp:
// every sharp decode runs on libuv's and libvips's threads, and glibc keeps each thread's freed
// memory in an arena of its own, so a sheet decoding thousands of frames held ~80 MiB it had freed
// (docs/imaging.md "Memory"). Anything else (other formats and pixel formats, a colour profile or
// gamma, animation, a CRC or zlib error, data of the wrong length) is undefined here, and sharp
// reads it as before, errors included.
import { crc32, inflateSync } from 'node:zlib';
import { PNG_SIGNATURE } from '../files/media.js';
import type { RawImage } from './records.js';

/** Chunks that say nothing about pixels: a PNG with only these (and IHDR, PLTE, tRNS, IDAT, IEND) is decoded here. */
const PIXEL_NEUTRAL_CHUNKS: ReadonlySet<string> = new Set(['pHYs', 'tEXt', 'zTXt', 'iTXt', 'tIME']);

/** The pixel formats decoded here, by colour type: their channels, and the bit depths taken. */
const FORMATS: Readonly<Record<number, { channels: number; depths: readonly number[] }>> = {
  0: { channels: 1, depths: [8] }, // grey
  2: { channels: 3, depths: [8] }, // RGB
  3: { channels: 1, depths: [1, 2, 4, 8] }, // palette indices
  4: { channels: 2, depths: [8] }, // grey and alpha
  6: { channels: 4, depths: [8] }, // RGBA
};

/**
 * A plain PNG's pixels as RGBA (8-bit grey, RGB, RGBA, grey and alpha, or a palette of any depth),
 * or undefined when the file is anything else, or damaged in any way: sharp decodes those.
 * `maxPixels` is checked before any pixel is allocated.
 */
export function decodePlainPng(bytes: Buffer, maxPixels: number): RawImage | undefined {
  if (bytes.length < 45 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  let width = 0;
  let height = 0;
  let depth = 0;
  let colourType = -1;
  let palette: Buffer | undefined;
  let alphas: Buffer | undefined;
  const data: Buffer[] = [];
  let ended = false;
  for (let offset = 8; offset < bytes.length && !ended;) {
    if (offset + 12 > bytes.length) return undefined;
    const length = bytes.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) return undefined;
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (crc32(body, crc32(bytes.subarray(offset + 4, offset + 8))) !== bytes.readUInt32BE(end - 4)) return undefined;
    if (offset === 8) {
      // IHDR: a format taken here, compression 0, filter 0, not interlaced.
      if (type !== 'IHDR' || length !== 13 || body[10] !== 0 || body[11] !== 0 || body[12] !== 0) return undefined;
      [width, height, depth, colourType] = [body.readUInt32BE(0), body.readUInt32BE(4), body[8], body[9]];
      if (!FORMATS[colourType]?.depths.includes(depth) || width === 0 || height === 0 || width * height > maxPixels) return undefined;
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      ended = true;
    } else if (type === 'PLTE' && colourType === 3 && !palette && !data.length && length % 3 === 0 && length > 0 && length <= 768) {
      palette = body;
    } else if (type === 'tRNS' && colourType === 3 && palette && !alphas && !data.length && length <= palette.length / 3) {
      alphas = body;
    } else if (!PIXEL_NEUTRAL_CHUNKS.has(type) || data.length) {
      // Anything that may change pixels (gamma, a profile, a colour key, animation), or a chunk
      // between or after the IDATs: sharp's to judge.
      return undefined;
    }
    offset = end;
  }
  if (!ended || !data.length || (colourType === 3 && !palette)) return undefined;
  const { channels } = FORMATS[colourType];
  const stride = Math.ceil((width * channels * depth) / 8);
  const expected = height * (stride + 1);
  let filtered: Buffer;
  try {
    filtered = inflateSync(data.length === 1 ? data[0] : Buffer.concat(data), { maxOutputLength: expected });
  } catch {
    return undefined;
  }
  if (filtered.length !== expected) return undefined;
  const rows = unfilter(filtered, height, stride, Math.max(1, (channels * depth) / 8));
  if (!rows) return undefined;
  const rgba =
    colourType === 6
      ? rows
      : colourType === 3
        ? fromPalette(rows, width, height, stride, depth, palette!, alphas)
        : expand(rows, width * height, channels);
  return rgba && { data: rgba, width, height };
}

/**
 * The rows' filters undone (PNG's five: none, sub, up, average, Paeth), into rows of `stride`
 * bytes; undefined on an unknown filter. The first row (no row above) and each row's first pixel
 * (none to its left) are their own loops, so the loops over the rest test nothing per byte.
 */
function unfilter(filtered: Buffer, height: number, stride: number, bpp: number): Buffer | undefined {
  const out = Buffer.allocUnsafe(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = filtered[y * (stride + 1)];
    const from = y * (stride + 1) + 1;
    const row = y * stride;
    const up = row - stride;
    const first = Math.min(bpp, stride);
    if (filter === 0 || (y === 0 && filter === 2)) {
      filtered.copy(out, row, from, from + stride);
    } else if (filter === 1 || (y === 0 && filter === 4)) {
      // Paeth with no row above predicts from the left, as sub does.
      filtered.copy(out, row, from, from + first);
      for (let x = first; x < stride; x++) out[row + x] = (filtered[from + x] + out[row + x - bpp]) & 0xff;
    } else if (filter === 2) {
      for (let x = 0; x < stride; x++) out[row + x] = (filtered[from + x] + out[up + x]) & 0xff;
    } else if (filter === 3) {
      if (y === 0) {
        filtered.copy(out, row, from, from + first);
        for (let x = first; x < stride; x++) out[row + x] = (filtered[from + x] + (out[row + x - bpp] >> 1)) & 0xff;
      } else {
        for (let x = 0; x < first; x++) out[row + x] = (filtered[from + x] + (out[up + x] >> 1)) & 0xff;
        for (let x = first; x < stride; x++) out[row + x] = (filtered[from + x] + ((out[row + x - bpp] + out[up + x]) >> 1)) & 0xff;
      }
    } else if (filter === 4) {
      // Paeth with nothing to the left predicts from above.
      for (let x = 0; x < first; x++) out[row + x] = (filtered[from + x] + out[up + x]) & 0xff;
      for (let x = first; x < stride; x++) {
        const a = out[row + x - bpp];
        const b = out[up + x];
        const c = out[up + x - bpp];
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - 2 * c);
        out[row + x] = (filtered[from + x] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
    } else {
      return undefined;
    }
  }
  return out;
}

/** 8-bit grey, grey and alpha, or RGB pixels as RGBA (grey copied to red, green and blue; alpha 255 where there is none, as sharp's ensureAlpha makes it). */
function expand(pixels: Buffer, count: number, channels: number): Buffer {
  const rgba = Buffer.allocUnsafe(count * 4);
  for (let i = 0, j = 0; i < count; i++, j += channels) {
    const o = i * 4;
    if (channels >= 3) {
      rgba[o] = pixels[j];
      rgba[o + 1] = pixels[j + 1];
      rgba[o + 2] = pixels[j + 2];
    } else rgba[o] = rgba[o + 1] = rgba[o + 2] = pixels[j];
    rgba[o + 3] = channels === 2 ? pixels[j + 1] : 255;
  }
  return rgba;
}

/** Palette indices (`depth` bits each, rows of `stride` bytes) as RGBA; undefined when an index is past the palette. */
function fromPalette(
  rows: Buffer,
  width: number,
  height: number,
  stride: number,
  depth: number,
  palette: Buffer,
  alphas?: Buffer,
): Buffer | undefined {
  const entries = palette.length / 3;
  const colours = new Uint32Array(entries);
  for (let k = 0; k < entries; k++)
    colours[k] =
      ((palette[k * 3] << 24) |
        (palette[k * 3 + 1] << 16) |
        (palette[k * 3 + 2] << 8) |
        (alphas && k < alphas.length ? alphas[k] : 255)) >>>
      0;
  const rgba = Buffer.allocUnsafe(width * height * 4);
  const perByte = 8 / depth;
  const mask = (1 << depth) - 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const index =
        depth === 8 ? rows[y * stride + x] : (rows[y * stride + Math.floor(x / perByte)] >> (8 - depth - (x % perByte) * depth)) & mask;
      if (index >= entries) return undefined;
      rgba.writeUInt32BE(colours[index], (y * width + x) * 4);
    }
  }
  return rgba;
}
