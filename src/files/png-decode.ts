// The one PNG decoder (the container's writer is ./png.ts): node:zlib inflates, this file walks the
// chunks, undoes the row filters and converts every non-interlaced pixel format (grey, RGB, palette,
// grey+alpha, RGBA; 1-16 bits; tRNS) to 8-bit RGBA. Two callers, two policies:
// - previews (src/ui/preview/png.ts, the MCP tools) take any such file, or an error saying why not;
// - a sheet's frames (src/imaging/raw.ts, `plainOnly`) take only the files it decodes to the same
//   bytes sharp gives (8-bit, or a palette; every CRC right; no chunk that may change pixels), and
//   leave every other to sharp: decoded here, on the main thread, they leave no freed memory in the
//   arenas of sharp's threads (docs/imaging.md "Memory").
// Interlaced files are refused rather than half-supported.
import { crc32, inflateSync } from 'node:zlib';
import { PNG_SIGNATURE } from './media.js';

/** Why a PNG was not decoded; the message completes "<file> …" ("is a truncated PNG"). */
export class PngDecodeError extends Error {
  override name = 'PngDecodeError';
}

export interface DecodedPng {
  width: number;
  height: number;
  /** width × height × 4 bytes, 8-bit RGBA, rows top to bottom. */
  data: Buffer;
}

export interface PngDecodeOptions {
  /** Called with the header's size before any pixel is allocated: throws to refuse it. */
  checkSize: (width: number, height: number) => void;
  /** undefined, not an error, for any file sharp might decode to other bytes, or not at all. */
  plainOnly?: boolean;
}

/** Channels per colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA), and the depths each takes. */
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Readonly<Record<number, readonly number[]>> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/** Chunks that say nothing about pixels: a plain PNG has only these before its IDATs, besides IHDR, PLTE and a palette's tRNS. */
const PIXEL_NEUTRAL_CHUNKS: ReadonlySet<string> = new Set(['pHYs', 'tEXt', 'zTXt', 'iTXt', 'tIME']);

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
}

export function decodePng(bytes: Uint8Array, options: PngDecodeOptions & { plainOnly: true }): DecodedPng | undefined;
export function decodePng(bytes: Uint8Array, options: PngDecodeOptions): DecodedPng;
export function decodePng(bytes: Uint8Array, { checkSize, plainOnly = false }: PngDecodeOptions): DecodedPng | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // In plainOnly mode every refusal is undefined (sharp's to judge, errors included).
  const refuse = (message: string): undefined => {
    if (plainOnly) return undefined;
    throw new PngDecodeError(message);
  };
  if (buffer.length < 8 || !buffer.subarray(0, 8).equals(PNG_SIGNATURE)) return refuse('is not a PNG image');
  let header: Header | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const data: Buffer[] = [];
  let offset = 8;
  for (;;) {
    if (offset + 12 > buffer.length) return refuse('is a truncated PNG');
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const end = offset + 8 + length;
    if (end + 4 > buffer.length) return refuse('is a truncated PNG');
    const body = buffer.subarray(offset + 8, end);
    if (plainOnly) {
      const plainChunk =
        type === 'IHDR' ||
        type === 'IDAT' ||
        type === 'IEND' ||
        (!data.length &&
          (type === 'PLTE' ||
            (type === 'tRNS' && header?.colourType === 3 && palette !== undefined && length <= palette.length / 3) ||
            PIXEL_NEUTRAL_CHUNKS.has(type)));
      // A chunk that may change pixels (gamma, a profile, a colour key, animation), one after the
      // IDATs began, or a CRC that does not match.
      if (!plainChunk || crc32(body, crc32(buffer.subarray(offset + 4, offset + 8))) !== buffer.readUInt32BE(end)) return undefined;
    }
    offset = end + 4;
    if (!header && type !== 'IHDR') return refuse('is a corrupt PNG (no IHDR first)');
    if (type === 'IHDR') {
      header = readHeader(body, plainOnly);
      if (!header) return undefined;
      checkSize(header.width, header.height);
    } else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
  }
  if (data.length === 0) return refuse('is a corrupt PNG (no image data)');
  if (header!.colourType === 3 && (!palette || palette.length % 3 !== 0 || palette.length > 768))
    return refuse('is a corrupt PNG (no palette, or a palette of the wrong size)');
  const { width, height, depth, colourType } = header!;
  const bitsPerPixel = CHANNELS[colourType] * depth;
  const rowBytes = Math.ceil((width * bitsPerPixel) / 8);
  const expected = (rowBytes + 1) * height;
  let filtered: Buffer;
  try {
    // maxOutputLength: a "zip bomb" stops at the size the header promised instead of filling memory.
    filtered = inflateSync(data.length === 1 ? data[0] : Buffer.concat(data), { maxOutputLength: expected });
  } catch {
    return refuse('is a corrupt PNG (bad compressed data)');
  }
  if (filtered.length < expected) return refuse('is a truncated PNG');
  const rows = unfilter(filtered, height, rowBytes, Math.max(1, bitsPerPixel >> 3));
  if (!rows) return refuse('is a corrupt PNG (unknown row filter)');
  const rgba = toRgba(rows, header!, rowBytes, palette, transparency);
  return rgba ? { width, height, data: rgba } : refuse('is a corrupt PNG (colour outside its palette)');
}

/** The header, or (plainOnly) undefined for one sharp might read otherwise: interlaced, 16-bit, grey below 8 bits. */
function readHeader(body: Buffer, plainOnly: boolean): Header | undefined {
  const header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8], colourType: body[9] };
  const known = body.length === 13 && DEPTHS[header.colourType]?.includes(header.depth) && body[10] === 0 && body[11] === 0;
  if (plainOnly) return known && body[12] === 0 && (header.depth === 8 || header.colourType === 3) ? header : undefined;
  if (body.length !== 13) throw new PngDecodeError('is a corrupt PNG (bad IHDR)');
  if (!known) throw new PngDecodeError(`is a PNG of an unknown kind (colour type ${header.colourType}, ${header.depth}-bit)`);
  if (body[12] !== 0) throw new PngDecodeError('is an interlaced PNG, which previews do not decode');
  return header;
}

/**
 * The rows' filters undone (PNG's five: none, sub, up, average, Paeth) into rows of `stride` bytes;
 * undefined on an unknown filter. The first row (none above) and each row's first pixel (none to
 * its left) have loops of their own, so the loops over the rest test nothing per byte.
 * In place: row y is written at y × stride, ahead of where its own filtered bytes are read
 * (y × (stride + 1) + 1 on), so no byte is overwritten before it is read, and a frame's pixels need
 * no second buffer of their size (8 MiB for a 2048×1024 frame, at a sheet's peak).
 */
function unfilter(filtered: Buffer, height: number, stride: number, bpp: number): Buffer | undefined {
  const out = filtered;
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
  return out.subarray(0, height * stride);
}

/** Unfiltered rows as 8-bit RGBA; undefined when a palette index is past the palette. */
function toRgba(rows: Buffer, header: Header, stride: number, palette?: Buffer, transparency?: Buffer): Buffer | undefined {
  const { width, height, depth, colourType } = header;
  if (colourType === 3) return fromPalette(rows, width, height, stride, depth, palette!, transparency);
  // tRNS for grey and RGB is a colour key, compared with the samples at the file's depth.
  if (depth !== 8 || transparency) return anyDepth(rows, header, stride, transparency);
  if (colourType === 6) return rows;
  const channels = CHANNELS[colourType];
  const rgba = Buffer.allocUnsafe(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i++, j += channels) {
    const o = i * 4;
    if (channels === 3) {
      rgba[o] = rows[j];
      rgba[o + 1] = rows[j + 1];
      rgba[o + 2] = rows[j + 2];
    } else rgba[o] = rgba[o + 1] = rgba[o + 2] = rows[j];
    // No alpha channel: opaque (as sharp's ensureAlpha makes it).
    rgba[o + 3] = channels === 2 ? rows[j + 1] : 255;
  }
  return rgba;
}

/** Palette indices (`depth` bits each) as RGBA, a palette's tRNS giving each entry's alpha. */
function fromPalette(
  rows: Buffer,
  width: number,
  height: number,
  stride: number,
  depth: number,
  palette: Buffer,
  transparency?: Buffer,
): Buffer | undefined {
  const entries = palette.length / 3;
  const colours = new Uint32Array(entries);
  for (let k = 0; k < entries; k++) {
    const alpha = transparency && k < transparency.length ? transparency[k] : 255;
    colours[k] = ((palette[k * 3] << 24) | (palette[k * 3 + 1] << 16) | (palette[k * 3 + 2] << 8) | alpha) >>> 0;
  }
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

/** Grey, RGB, grey+alpha or RGBA at any depth, or with a colour key: sample by sample, each scaled to 8 bits. */
function anyDepth(rows: Buffer, header: Header, stride: number, transparency?: Buffer): Buffer {
  const { width, height, depth, colourType } = header;
  const channels = CHANNELS[colourType];
  const rgba = Buffer.allocUnsafe(width * height * 4);
  const max = (1 << depth) - 1;
  const samples = new Array<number>(channels);
  const to8 = (sample: number): number => (depth === 16 ? sample >> 8 : depth === 8 ? sample : Math.round((sample * 255) / max));
  const grey = colourType === 0 || colourType === 4;
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    for (let x = 0; x < width; x++) {
      // Raw samples at the file's depth (for tRNS, which compares them), then 8-bit values.
      for (let c = 0; c < channels; c++) {
        const index = x * channels + c;
        if (depth === 16) samples[c] = rows.readUInt16BE(row + index * 2);
        else if (depth === 8) samples[c] = rows[row + index];
        else samples[c] = (rows[row + ((index * depth) >> 3)] >> (8 - depth - ((index * depth) & 7))) & max;
      }
      const out = (y * width + x) * 4;
      rgba[out] = to8(samples[0]);
      rgba[out + 1] = to8(grey ? samples[0] : samples[1]);
      rgba[out + 2] = to8(grey ? samples[0] : samples[2]);
      rgba[out + 3] = colourType === 4 ? to8(samples[1]) : colourType === 6 ? to8(samples[3]) : keyed(samples, transparency) ? 0 : 255;
    }
  }
  return rgba;
}

/** tRNS for grey and RGB: one sample value (16-bit fields) that is fully transparent. */
function keyed(samples: number[], transparency?: Buffer): boolean {
  if (!transparency || transparency.length < samples.length * 2) return false;
  return samples.every((sample, c) => transparency.readUInt16BE(c * 2) === sample);
}
