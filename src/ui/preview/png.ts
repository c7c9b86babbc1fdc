// A small PNG decoder and encoder, enough for previews: node:zlib does the inflating, this file the
// chunks, the row filters and the pixel formats. Decodes every non-interlaced PNG (grey, RGB,
// palette, grey+alpha, RGBA; 1-16 bits, tRNS transparency); interlaced files are refused with a
// note rather than half-supported. Written here rather than pulled in as a dependency: a preview
// needs only this much, and the CLI's start-up and install stay as small as they are.
import { deflateSync, inflateSync } from 'node:zlib';
import { PNG_SIGNATURE } from '../../files/media.js';
import { pngChunk, pngHeader } from '../../files/png.js';
import { checkSize, PreviewError, type Pixels } from './image.js';

/** Channels per colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
}

export function decodePng(bytes: Uint8Array): Pixels {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 8 || !buffer.subarray(0, 8).equals(PNG_SIGNATURE)) throw new PreviewError('is not a PNG image');
  let header: Header | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const data: Buffer[] = [];
  let offset = 8;
  for (;;) {
    if (offset + 12 > buffer.length) throw new PreviewError('is a truncated PNG');
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const end = offset + 8 + length;
    if (end + 4 > buffer.length) throw new PreviewError('is a truncated PNG');
    const body = buffer.subarray(offset + 8, end);
    offset = end + 4;
    if (!header && type !== 'IHDR') throw new PreviewError('is a corrupt PNG (no IHDR first)');
    if (type === 'IHDR') header = readHeader(body);
    else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
  }
  if (!header || data.length === 0) throw new PreviewError('is a corrupt PNG (no image data)');
  if (header.colourType === 3 && (!palette || palette.length % 3 !== 0)) throw new PreviewError('is a corrupt PNG (no palette)');
  const bitsPerPixel = CHANNELS[header.colourType] * header.depth;
  const rowBytes = Math.ceil((header.width * bitsPerPixel) / 8);
  const expected = (rowBytes + 1) * header.height;
  let raw: Buffer;
  try {
    // maxOutputLength: a "zip bomb" stops at the size the header promised instead of filling memory.
    raw = inflateSync(Buffer.concat(data), { maxOutputLength: expected });
  } catch {
    throw new PreviewError('is a corrupt PNG (bad compressed data)');
  }
  if (raw.length < expected) throw new PreviewError('is a truncated PNG');
  unfilter(raw, header.height, rowBytes, Math.max(1, bitsPerPixel >> 3));
  return toRgba(raw, header, rowBytes, palette, transparency);
}

function readHeader(body: Buffer): Header {
  if (body.length !== 13) throw new PreviewError('is a corrupt PNG (bad IHDR)');
  const header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8], colourType: body[9] };
  if (!DEPTHS[header.colourType]?.includes(header.depth) || body[10] !== 0 || body[11] !== 0) {
    throw new PreviewError(`is a PNG of an unknown kind (colour type ${header.colourType}, ${header.depth}-bit)`);
  }
  if (body[12] !== 0) throw new PreviewError('is an interlaced PNG, which previews do not decode');
  checkSize(header.width, header.height);
  return header;
}

/** Reverses the per-row filters (none, sub, up, average, Paeth) in place. */
function unfilter(raw: Buffer, height: number, rowBytes: number, bpp: number): void {
  for (let y = 0; y < height; y++) {
    const start = y * (rowBytes + 1) + 1;
    const previous = start - (rowBytes + 1);
    const filter = raw[start - 1];
    if (filter > 4) throw new PreviewError(`is a corrupt PNG (filter ${filter})`);
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= bpp ? raw[start + i - bpp] : 0;
      const up = y > 0 ? raw[previous + i] : 0;
      const upLeft = y > 0 && i >= bpp ? raw[previous + i - bpp] : 0;
      let add = 0;
      if (filter === 1) add = left;
      else if (filter === 2) add = up;
      else if (filter === 3) add = (left + up) >> 1;
      else if (filter === 4) add = paeth(left, up, upLeft);
      raw[start + i] = (raw[start + i] + add) & 0xff;
    }
  }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function toRgba(raw: Buffer, header: Header, rowBytes: number, palette?: Buffer, transparency?: Buffer): Pixels {
  const { width, height, depth, colourType } = header;
  const channels = CHANNELS[colourType];
  const data = new Uint8Array(width * height * 4);
  const max = (1 << depth) - 1;
  const samples = new Array<number>(channels);
  const to8 = (sample: number): number => (depth === 16 ? sample >> 8 : depth === 8 ? sample : Math.round((sample * 255) / max));
  for (let y = 0; y < height; y++) {
    const row = y * (rowBytes + 1) + 1;
    for (let x = 0; x < width; x++) {
      // Raw samples at the file's depth (for tRNS, which compares them), then 8-bit values.
      for (let c = 0; c < channels; c++) {
        const index = x * channels + c;
        if (depth === 16) samples[c] = raw.readUInt16BE(row + index * 2);
        else if (depth === 8) samples[c] = raw[row + index];
        else samples[c] = (raw[row + ((index * depth) >> 3)] >> (8 - depth - ((index * depth) & 7))) & max;
      }
      const out = (y * width + x) * 4;
      if (colourType === 3) {
        const entry = samples[0];
        if (entry * 3 + 2 >= palette!.length) throw new PreviewError('is a corrupt PNG (colour outside its palette)');
        data.set(palette!.subarray(entry * 3, entry * 3 + 3), out);
        data[out + 3] = transparency && entry < transparency.length ? transparency[entry] : 255;
        continue;
      }
      const grey = colourType === 0 || colourType === 4;
      data[out] = to8(samples[0]);
      data[out + 1] = to8(grey ? samples[0] : samples[1]);
      data[out + 2] = to8(grey ? samples[0] : samples[2]);
      data[out + 3] = colourType === 4 ? to8(samples[1]) : colourType === 6 ? to8(samples[3]) : opaque(samples, transparency) ? 255 : 0;
    }
  }
  return { width, height, data };
}

/** tRNS for grey and RGB: one sample value (16-bit fields) that is fully transparent. */
function opaque(samples: number[], transparency?: Buffer): boolean {
  if (!transparency || transparency.length < samples.length * 2) return true;
  return samples.some((sample, c) => transparency.readUInt16BE(c * 2) !== sample);
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
