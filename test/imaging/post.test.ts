// Post steps on real pixels: PNG fixtures made here from RGBA buffers, run through applyPostSteps,
// and the result decoded and compared pixel by pixel.
import crypto from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pngChunk } from '../../src/files/png.js';
import { applyPostSteps, nextPowerOfTwo, padToPowerOfTwo } from '../../src/imaging/post.js';
import { parsePostSteps, type PostStep } from '../../src/imaging/post-steps.js';
import { decodeImage, encodeImage, opaqueBounds } from '../../src/imaging/raw.js';
import { resizeGeometry, resizeImage } from '../../src/imaging/resize.js';
import { coloursOf, makePixels, noisy, pixelAt, readPixels, region, toPng, type RGBA } from './pixels.js';

const CLEAR: RGBA = [0, 0, 0, 0];
const run = async (bytes: Buffer, post: unknown) => {
  const result = await applyPostSteps(bytes, parsePostSteps(post));
  return { result, pixels: await readPixels(result.bytes) };
};

describe('trim', () => {
  // Transparent 20×16 with content at (3,5), (11,9) and one barely visible pixel (alpha 1) at (14,2).
  const source = makePixels(20, 16, (x, y) => {
    if (x === 3 && y === 5) return [255, 0, 0, 255];
    if (x === 11 && y === 9) return [0, 0, 255, 200];
    if (x === 14 && y === 2) return [9, 9, 9, 1];
    if (x >= 3 && x <= 11 && y >= 5 && y <= 9) return [0, 128, 0, 255];
    return CLEAR;
  });

  it('cuts to the exact bounding box of non-transparent pixels and records the offsets', async () => {
    const { result, pixels } = await run(await toPng(source), ['trim']);
    expect(result.trim).toEqual({ left: 3, top: 2, width: 12, height: 8, sourceWidth: 20, sourceHeight: 16 });
    expect([result.width, result.height, pixels.width, pixels.height]).toEqual([12, 8, 12, 8]);
    expect(pixels.data.equals(region(source, 3, 2, 12, 8))).toBe(true);
    expect(pixelAt(pixels, 0, 3)).toBe('ff0000ff');
  });

  it('with a threshold, treats faint pixels as transparent', async () => {
    const { result, pixels } = await run(await toPng(source), [{ trim: { threshold: 1 } }]);
    expect(result.trim).toEqual({ left: 3, top: 5, width: 9, height: 5, sourceWidth: 20, sourceHeight: 16 });
    expect(pixels.data.equals(region(source, 3, 5, 9, 5))).toBe(true);
  });

  it('leaves an image without transparent borders as it is, and makes a fully transparent one a single pixel', async () => {
    const full = makePixels(5, 4, noisy(1));
    const { result, pixels } = await run(await toPng(full), ['trim']);
    expect(result.trim).toEqual({ left: 0, top: 0, width: 5, height: 4, sourceWidth: 5, sourceHeight: 4 });
    expect(pixels.data.equals(full.data)).toBe(true);
    const empty = await run(await toPng(makePixels(7, 3, () => CLEAR)), ['trim']);
    expect(empty.result.trim).toEqual({ left: 0, top: 0, width: 1, height: 1, sourceWidth: 7, sourceHeight: 3 });
    expect(pixelAt(empty.pixels, 0, 0)).toBe('00000000');
  });

  it('as the last step, writes the bytes of the cut-out picture encoded alone (the encoder cuts it out: no copy made)', async () => {
    const picture = makePixels(33, 21, (x, y) => (Math.hypot(x - 15, y - 11) < 9 ? noisy(3)(x, y) : CLEAR));
    for (const post of [['trim'], ['trim', { format: 'webp' }]]) {
      const result = await applyPostSteps(await toPng(picture), parsePostSteps(post));
      const { left, top, width, height } = result.trim!;
      const alone = await encodeImage({ data: region(picture, left, top, width, height), width, height }, result.format);
      expect([result.width, result.height]).toEqual([width, height]);
      expect(result.bytes.equals(alone)).toBe(true);
    }
  });

  it('finds the box a scan of every pixel finds, on scattered pixels and thresholds', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    for (let round = 0; round < 60; round++) {
      const width = 1 + (next() % 19);
      const height = 1 + (next() % 17);
      const threshold = next() % 3;
      const image = makePixels(width, height, () => (next() < 12 ? [1, 2, 3, next() % 4] : CLEAR));
      let box: { left: number; top: number; width: number; height: number } | undefined;
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++)
          if (image.data[(y * width + x) * 4 + 3] > threshold) {
            const left = Math.min(box?.left ?? x, x);
            const top = box?.top ?? y;
            const right = Math.max(box ? box.left + box.width - 1 : x, x);
            box = { left, top, width: right - left + 1, height: y - top + 1 };
          }
      expect(opaqueBounds(image, threshold)).toEqual(box);
    }
  });
});

describe('resize', () => {
  // Pixel art: 8×8 of five colours, two of them half-transparent (which premultiplied scaling shifts).
  const palette: RGBA[] = [[255, 0, 0, 255], [0, 255, 0, 128], [250, 250, 0, 37], [0, 0, 255, 255], CLEAR];
  const art = makePixels(8, 8, (x, y) => palette[(x * 3 + y * 5 + ((x * y) % 3)) % palette.length]!);

  it('nearest keeps every colour of pixel art and nothing else, each source pixel a block of the output', async () => {
    const { result, pixels } = await run(await toPng(art), [{ resize: { width: 24, height: 24, kernel: 'nearest' } }]);
    expect([result.width, result.height]).toEqual([24, 24]);
    expect(coloursOf(pixels)).toEqual(coloursOf(art));
    for (let y = 0; y < 24; y++)
      for (let x = 0; x < 24; x++) expect(pixelAt(pixels, x, y)).toBe(pixelAt(art, Math.floor(x / 3), Math.floor(y / 3)));
  });

  it('nearest at an odd size and aspect adds only transparent padding', async () => {
    const { result, pixels } = await run(await toPng(art), [{ resize: { width: 19, height: 13, fit: 'contain', kernel: 'nearest' } }]);
    expect([result.width, result.height]).toEqual([19, 13]);
    for (const colour of coloursOf(pixels)) expect(coloursOf(art).has(colour) || colour === '00000000', colour).toBe(true);
  });

  it('a smoothing kernel makes new colours (what nearest is for)', async () => {
    const { pixels } = await run(await toPng(art), [{ resize: { width: 20, height: 20, kernel: 'lanczos3' } }]);
    expect([...coloursOf(pixels)].filter((colour) => !coloursOf(art).has(colour)).length).toBeGreaterThan(0);
  });

  it('places the picture as each fit says', () => {
    const spec = (fit: 'contain' | 'cover' | 'fill' | 'inside' | 'outside') => ({ width: 64, height: 64, fit, kernel: 'nearest' as const });
    expect(resizeGeometry(100, 50, spec('contain'))).toEqual({
      scaledWidth: 64,
      scaledHeight: 32,
      width: 64,
      height: 64,
      left: 0,
      top: 16,
    });
    expect(resizeGeometry(100, 50, spec('cover'))).toEqual({
      scaledWidth: 128,
      scaledHeight: 64,
      width: 64,
      height: 64,
      left: -32,
      top: 0,
    });
    expect(resizeGeometry(100, 50, spec('fill'))).toEqual({ scaledWidth: 64, scaledHeight: 64, width: 64, height: 64, left: 0, top: 0 });
    expect(resizeGeometry(100, 50, spec('inside'))).toEqual({ scaledWidth: 64, scaledHeight: 32, width: 64, height: 32, left: 0, top: 0 });
    expect(resizeGeometry(100, 50, spec('outside'))).toEqual({
      scaledWidth: 128,
      scaledHeight: 64,
      width: 128,
      height: 64,
      left: 0,
      top: 0,
    });
    expect(resizeGeometry(100, 50, { width: 30, fit: 'contain', kernel: 'nearest' })).toMatchObject({ width: 30, height: 15 });
  });

  it('"64x64" makes a 64×64 image from a 128×96 one (contain: the picture whole, centred)', async () => {
    const big = makePixels(128, 96, () => [200, 10, 10, 255]);
    const { result, pixels } = await run(await toPng(big), [{ resize: '64x64' }]);
    expect([result.width, result.height]).toEqual([64, 64]);
    expect([pixelAt(pixels, 32, 0), pixelAt(pixels, 32, 8), pixelAt(pixels, 32, 32), pixelAt(pixels, 32, 63)]).toEqual([
      '00000000',
      'c80a0aff',
      'c80a0aff',
      '00000000',
    ]);
  });
});

describe('pot', () => {
  it.each([
    [20, 9, 32, 16],
    [64, 64, 64, 64],
    [1, 1, 1, 1],
    [65, 3, 128, 4],
  ])('pads %i×%i to %i×%i: the picture at the top left, the rest transparent', async (width, height, potWidth, potHeight) => {
    const source = makePixels(width, height, noisy(width));
    const { result, pixels } = await run(await toPng(source), ['pot']);
    expect([result.width, result.height, pixels.width, pixels.height]).toEqual([potWidth, potHeight, potWidth, potHeight]);
    expect(region(pixels, 0, 0, width, height).equals(source.data)).toBe(true);
    const padding = [region(pixels, width, 0, potWidth - width, potHeight), region(pixels, 0, height, potWidth, potHeight - height)];
    for (const pixelsOf of padding) expect(pixelsOf.every((byte) => byte === 0)).toBe(true);
  });

  it('computes the next power of two', () => {
    expect([1, 2, 3, 5, 64, 65, 1000].map(nextPowerOfTwo)).toEqual([1, 2, 4, 8, 64, 128, 1024]);
  });
});

describe('palette', () => {
  const gradient = makePixels(64, 64, (x, y) => [x * 4, y * 4, (x * y) % 256, x % 7 === 0 ? 0 : 255]);

  it.each([8, 5, 2, 256])('palette %i leaves at most that many colours', async (colours) => {
    expect(coloursOf(gradient).size).toBeGreaterThan(256);
    const { result, pixels } = await run(await toPng(gradient), [{ palette: colours }]);
    expect(result.format).toBe('png');
    const left = coloursOf(pixels).size;
    expect(left).toBeLessThanOrEqual(colours);
    expect(left).toBeGreaterThan(Math.min(1, colours - 1));
  });

  it('writes an indexed PNG, and keeps an image that already fits as it is', async () => {
    const { result } = await run(await toPng(gradient), [{ palette: 8 }]);
    expect((await readPixels(result.bytes)).format).toBe('png');
    // An indexed PNG has a PLTE chunk.
    expect(result.bytes.includes(Buffer.from('PLTE'))).toBe(true);
    const few = makePixels(9, 9, (x) => (x % 2 ? [1, 2, 3, 255] : [200, 100, 50, 128]));
    const kept = await run(await toPng(few), [{ palette: 4 }]);
    expect(kept.pixels.data.equals(few.data)).toBe(true);
  });
});

describe('palette: the quantiser once', () => {
  const gradient = makePixels(64, 64, (x, y) => [x * 4, y * 4, (x * y) % 256, x % 7 === 0 ? 0 : 255]);
  const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');
  // The pixels each list gave when libimagequant ran twice (before issue 30), pinned: quantising once
  // must give the same result (the same error). Bytes and pixels can differ between sharp versions.
  const before: [unknown, string][] = [
    [16, '77061a203f8a99ac1991cf4731650c4512593cc0a47aea88299f5696a0ca7cc7'],
    [5, '2394c4ee5b36d442077c90bb678689b24e9e9df289270820a3e5a52b2edb9fc5'],
    [{ colors: 12, dither: 0.5 }, '6d1ca79e3c926d0b941fd876dd9e472f8485d3ee430041722113e8f7bc4b4b57'],
  ];

  it.each(before)('palette %j keeps the pixels it had, at most N colours, the same bytes every run', async (palette, pixelsSha) => {
    const input = await toPng(gradient);
    const { result, pixels } = await run(input, [{ palette }]);
    expect(sha256(pixels.data)).toBe(pixelsSha);
    const colours = typeof palette === 'number' ? palette : (palette as { colors: number }).colors;
    expect(coloursOf(pixels).size).toBeLessThanOrEqual(colours);
    expect((await run(input, [{ palette }])).result.bytes.equals(result.bytes)).toBe(true);
  });

  it("a power-of-two palette is the quantiser's own indexed PNG: the bytes of one sharp call at the same settings", async () => {
    const { result } = await run(await toPng(gradient), [{ palette: 16 }]);
    const once = await sharp(gradient.data, { raw: { width: 64, height: 64, channels: 4 } })
      .png({ compressionLevel: 9, adaptiveFiltering: false, palette: true, colours: 16, dither: 0, effort: 10 })
      .toBuffer();
    expect(result.bytes.equals(once)).toBe(true);
  });

  it('an image that already fits is written indexed exactly, translucent entries first, at the smallest bit depth', async () => {
    const few = makePixels(9, 3, (x) => (x % 3 === 0 ? [1, 2, 3, 255] : x % 3 === 1 ? [200, 100, 50, 128] : CLEAR));
    const { result, pixels } = await run(await toPng(few), [{ palette: 4 }]);
    expect(pixels.data.equals(few.data)).toBe(true);
    // IHDR: bit depth 2 (three colours), colour type 3 (indexed); tRNS holds the two translucent entries.
    expect([result.bytes[24], result.bytes[25]]).toEqual([2, 3]);
    const trns = result.bytes.indexOf('tRNS');
    expect(result.bytes.readUInt32BE(trns - 4)).toBe(2);
  });
});

describe('format and determinism', () => {
  const source = makePixels(33, 17, noisy(3));

  it('format webp gives a lossless WebP of the same pixels', async () => {
    const { result, pixels } = await run(await toPng(source), [{ format: 'webp' }]);
    expect(result.format).toBe('webp');
    expect(result.bytes.toString('latin1', 0, 4)).toBe('RIFF');
    expect(result.bytes.toString('latin1', 8, 12)).toBe('WEBP');
    expect(pixels.format).toBe('webp');
    expect(pixels.data.equals(source.data)).toBe(true);
  });

  it('the same input and steps give the same bytes, with no metadata chunks', async () => {
    const input = await toPng(makePixels(40, 30, (x, y) => (x > 5 && y > 3 && x < 30 ? noisy(4)(x, y) : CLEAR)));
    const lists: unknown[] = [
      [],
      ['trim', { resize: { width: 50, kernel: 'nearest' } }, 'pot'],
      ['trim', { resize: { width: 50, height: 20, fit: 'cover' } }, 'pot', { palette: 12 }],
      [{ resize: '16x16' }, { palette: 6 }, { format: 'webp' }],
    ];
    for (const post of lists) {
      const first = await run(input, post);
      const second = await run(input, post);
      expect(first.result.bytes.equals(second.result.bytes), JSON.stringify(post)).toBe(true);
      for (const chunk of ['tEXt', 'iTXt', 'zTXt', 'tIME', 'eXIf']) expect(first.result.bytes.includes(Buffer.from(chunk))).toBe(false);
    }
  });
});

describe('steps that need no pixel in JS run as one sharp pipeline', () => {
  /** A chunk list rewritten: `edit` gives each chunk's replacement (none, itself, or more). */
  function rewriteChunks(png: Buffer, edit: (type: string, chunk: Buffer) => Buffer[]): Buffer {
    const parts = [png.subarray(0, 8)];
    for (let offset = 8; offset < png.length; ) {
      const length = png.readUInt32BE(offset);
      parts.push(...edit(png.toString('latin1', offset + 4, offset + 8), png.subarray(offset, offset + 12 + length)));
      offset += 12 + length;
    }
    return Buffer.concat(parts);
  }
  const densityChunk = (perMetre: number): Buffer => {
    const body = Buffer.alloc(9);
    body.writeUInt32BE(perMetre, 0);
    body.writeUInt32BE(perMetre, 4);
    body[8] = 1;
    return pngChunk('pHYs', body);
  };

  it('gives the same bytes as the steps one by one on RGBA pixels, whatever density the file says', async () => {
    const made = await toPng(makePixels(61, 47, noisy(9)));
    const inputs = {
      'written by sharp': made,
      'no pHYs': rewriteChunks(made, (type, chunk) => (type === 'pHYs' ? [] : [chunk])),
      '72 dpi': rewriteChunks(made, (type, chunk) => (type === 'pHYs' ? [densityChunk(2835)] : [chunk])),
    };
    for (const [name, input] of Object.entries(inputs)) {
      for (const fit of ['contain', 'fill', 'inside'] as const) {
        for (const format of ['png', 'webp'] as const) {
          const post = [{ resize: { width: 40, height: 25, fit, kernel: 'lanczos3' } }, 'pot', ...(format === 'webp' ? [{ format }] : [])];
          const steps = parsePostSteps(post);
          // The same steps one by one: decoded to RGBA, resized, padded, encoded from memory.
          const resized = await resizeImage(await decodeImage(input), steps[0] as Extract<PostStep, { kind: 'resize' }>);
          const expected = await encodeImage(padToPowerOfTwo(resized), format);
          const { bytes } = await applyPostSteps(input, steps);
          expect(bytes.equals(expected), `${name}, ${fit}, ${format}`).toBe(true);
        }
      }
    }
  });
});
