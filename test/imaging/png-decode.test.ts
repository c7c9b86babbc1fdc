// The PNG decoder's plainOnly mode (src/files/png-decode.ts), which sheets decode frames with,
// against sharp, pixel for pixel: every row filter, every pixel format it takes, several IDATs, the
// encoders that write assetgen's PNGs (and the mock's); and every PNG it must leave to sharp (other
// pixel formats, interlacing, a colour profile or gamma, animation, damage, a zlib bomb) left to
// it, with decodeImage's pixels still sharp's. Previews' use of the same decoder: test/unit/preview.test.ts.
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PNG_SIGNATURE } from '../../src/files/media.js';
import { pngChunk, pngHeader } from '../../src/files/png.js';
import { renderPng } from '../../src/mock/media/png.js';
import { decodePng } from '../../src/files/png-decode.js';
import { decodeImage, encodeIndexedPng, IMAGE_LIMITS } from '../../src/imaging/raw.js';
import { makePixels, toPng } from './pixels.js';

/** The decoder as sheets call it: undefined for anything it leaves to sharp; `maxPixels` as the size check. */
const plain = (bytes: Buffer, maxPixels: number) =>
  decodePng(bytes, {
    plainOnly: true,
    checkSize: (width, height) => {
      if (width * height > maxPixels) throw new Error(`${width}×${height} is too large`);
    },
  });

/** sharp's decode as decodeImage asked it before: sRGB, alpha ensured, 8 bits. */
async function sharpPixels(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { failOn: 'error', animated: false }).toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer();
}

/** A deterministic picture with edges, gradients and noise, translucent in places. */
const picture = (width: number, height: number) =>
  makePixels(width, height, (x, y) => {
    const noise = (x * 7919 + y * 104_729 + ((x * y) % 251)) % 256;
    return [(x * 5 + noise) & 0xff, (y * 3) & 0xff, (x ^ y) & 0xff, x % 17 === 0 ? 0 : y % 11 === 0 ? noise : 255];
  });

/** A PNG written here with row y filtered by filter y % 5 (so every filter is met), split into IDATs of `idat` bytes. */
function filteredPng(rgba: Buffer, width: number, height: number, channels: 3 | 4, idat = 1 << 20): Buffer {
  const stride = width * channels;
  const raw = Buffer.alloc(width * height * channels);
  for (let i = 0, j = 0; i < width * height; i++, j += 4) rgba.copy(raw, i * channels, j, j + channels);
  const rows = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const filter = y % 5;
    rows[y * (stride + 1)] = filter;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * stride + x];
      const a = x >= channels ? raw[y * stride + x - channels] : 0;
      const b = y > 0 ? raw[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? raw[(y - 1) * stride + x - channels] : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      rows[y * (stride + 1) + 1 + x] = (value - predictor) & 0xff;
    }
  }
  const data = deflateSync(rows);
  const idats: Buffer[] = [];
  for (let at = 0; at < data.length; at += idat) idats.push(pngChunk('IDAT', data.subarray(at, at + idat)));
  return png([pngChunk('IHDR', pngHeader(width, height, 8, channels === 4 ? 6 : 2)), ...idats]);
}

const png = (chunks: Buffer[]): Buffer => Buffer.concat([PNG_SIGNATURE, ...chunks, pngChunk('IEND', Buffer.alloc(0))]);

/** The same PNG with `chunk` put after its IHDR. */
const withChunk = (bytes: Buffer, chunk: Buffer): Buffer => Buffer.concat([bytes.subarray(0, 33), chunk, bytes.subarray(33)]);

describe('decodePng, plainOnly', () => {
  const { data, width, height } = picture(61, 37);

  it('gives sharp’s pixels for every row filter, RGBA and RGB, in one IDAT or many', async () => {
    for (const channels of [4, 3] as const) {
      for (const idat of [1 << 20, 97]) {
        const bytes = filteredPng(data, width, height, channels, idat);
        const decoded = plain(bytes, IMAGE_LIMITS.maxPixels);
        expect(decoded, `${channels} channels, IDATs of ${idat}`).toBeDefined();
        expect({ width: decoded!.width, height: decoded!.height }).toEqual({ width, height });
        expect(decoded!.data.equals(await sharpPixels(bytes)), `${channels} channels, IDATs of ${idat}`).toBe(true);
      }
    }
  });

  it('gives sharp’s pixels for the PNGs sharp writes (adaptive filters, RGB and RGBA) and the mock’s', async () => {
    const raw = { raw: { width, height, channels: 4 as const } };
    const written = [
      await toPng({ data, width, height }),
      await sharp(data, raw).png({ adaptiveFiltering: true, compressionLevel: 6 }).toBuffer(),
      await sharp(data, raw).removeAlpha().png({ adaptiveFiltering: true }).toBuffer(),
      withChunk(await toPng({ data, width, height }), pngChunk('tEXt', Buffer.from('Comment\0made here'))),
      renderPng('icon-forge', 'a sword'),
      // Palettes of 2, 4, 16 and 256 entries: indices of 1, 2, 4 and 8 bits, translucent entries in tRNS.
      ...[2, 4, 16, 256].map((count) =>
        encodeIndexedPng(
          makePixels(width, height, (x, y) => {
            const k = (x * 31 + y) % count;
            return [k, 255 - k, 7, k < count / 2 ? 255 : 90];
          }),
        ),
      ),
      await sharp(data, raw).png({ palette: true, colours: 200 }).toBuffer(),
      await sharp(data, raw).removeAlpha().toColourspace('b-w').png().toBuffer(),
      await sharp(data, raw).toColourspace('b-w').png().toBuffer(),
    ];
    // What the fixtures are (IHDR's colour type): the palettes, then grey, then grey and alpha.
    expect(written.slice(4).map((bytes) => bytes[25])).toEqual([3, 3, 3, 3, 3, 3, 0, 4]);
    expect(written.slice(4, 9).map((bytes) => bytes[24])).toEqual([4, 1, 2, 4, 8]);
    for (const [index, bytes] of written.entries()) {
      const decoded = plain(bytes, IMAGE_LIMITS.maxPixels);
      expect(decoded, `PNG ${index}`).toBeDefined();
      expect(decoded!.data.equals(await sharpPixels(bytes)), `PNG ${index}`).toBe(true);
    }
  });

  it('leaves every other PNG to sharp, and decodeImage still reads those as sharp does', async () => {
    const file = filteredPng(data, width, height, 4);
    const damagedCrc = Buffer.from(file);
    damagedCrc[29] ^= 0xff; // the IHDR's CRC
    const others: Record<string, Buffer> = {
      greyFourBits: png([pngChunk('IHDR', pngHeader(2, 2, 4, 0)), pngChunk('IDAT', deflateSync(Buffer.from([0, 0x12, 0, 0x34])))]),
      colourKey: withChunk(filteredPng(data, width, height, 3), pngChunk('tRNS', Buffer.from([0, 1, 0, 2, 0, 3]))),
      pastPalette: png([
        pngChunk('IHDR', pngHeader(2, 1, 8, 3)),
        pngChunk('PLTE', Buffer.from([1, 2, 3])),
        pngChunk('IDAT', deflateSync(Buffer.from([0, 0, 1]))),
      ]),
      sixteenBit: await sharp(data, { raw: { width, height, channels: 4 } })
        .toColourspace('rgb16')
        .png()
        .toBuffer(),
      interlaced: await sharp(data, { raw: { width, height, channels: 4 } })
        .png({ progressive: true })
        .toBuffer(),
      gamma: withChunk(file, pngChunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f]))),
      profile: withChunk(file, pngChunk('iCCP', Buffer.concat([Buffer.from('x\0\0'), deflateSync(Buffer.alloc(8))]))),
      animated: withChunk(file, pngChunk('acTL', Buffer.from([0, 0, 0, 1, 0, 0, 0, 0]))),
      damagedCrc,
      truncated: file.subarray(0, file.length - 20),
    };
    // A filter byte past PNG's five.
    const rows = Buffer.alloc(2 * (2 * 4 + 1));
    rows[0] = 7;
    others.badFilter = png([pngChunk('IHDR', pngHeader(2, 2, 8, 6)), pngChunk('IDAT', deflateSync(rows))]);
    // What the fixtures are (IHDR's depth and colour type, its interlace byte).
    expect([others.sixteenBit![24], others.interlaced![28]]).toEqual([16, 1]);
    for (const [name, bytes] of Object.entries(others)) expect(plain(bytes, IMAGE_LIMITS.maxPixels), name).toBeUndefined();
    for (const name of ['greyFourBits', 'colourKey', 'sixteenBit', 'interlaced', 'gamma']) {
      const decoded = await decodeImage(others[name]!, name, IMAGE_LIMITS, { onMainThread: true });
      expect(decoded.data.equals(await sharpPixels(others[name]!)), name).toBe(true);
    }
  });

  it('refuses more data than the header promises (a zlib bomb), and asks the caller about the size before allocating pixels', () => {
    const rows = Buffer.alloc(64 * 1024 * 1024);
    const bomb = png([pngChunk('IHDR', pngHeader(16, 16, 8, 6)), pngChunk('IDAT', deflateSync(rows))]);
    expect(plain(bomb, IMAGE_LIMITS.maxPixels)).toBeUndefined();
    const short = png([pngChunk('IHDR', pngHeader(16, 16, 8, 6)), pngChunk('IDAT', deflateSync(Buffer.alloc(16 * 65 - 1)))]);
    expect(plain(short, IMAGE_LIMITS.maxPixels)).toBeUndefined();
    // The size is the caller's check, made from the header before any pixel is allocated.
    const file = filteredPng(data, width, height, 4);
    expect(() => plain(file, width * height - 1)).toThrow(`${width}×${height} is too large`);
    expect(plain(file, width * height)).toBeDefined();
  });
});
