// What post steps refuse, and how: hostile or broken input gives a typed ImagingError with a message
// naming it, never a crash or a huge allocation; odd but valid input (grey, 16-bit, JPEG, GIF) works.
import zlib from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ImagingError } from '../../src/imaging/errors.js';
import { ENCODER_LIMITS, POST_LIMITS } from '../../src/imaging/limits.js';
import { applyPostSteps } from '../../src/imaging/post.js';
import { parsePostSteps } from '../../src/imaging/post-steps.js';
import { makePixels, noisy, readPixels, toPng } from './pixels.js';

async function failure(bytes: Buffer, post: unknown = ['trim']): Promise<ImagingError> {
  const error = await applyPostSteps(bytes, parsePostSteps(post), 'sprite.png').then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ImagingError);
  return error as ImagingError;
}

/** A real PNG whose header claims another size (its CRC recomputed, so only the size is a lie). */
async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await toPng(makePixels(1, 1, () => [1, 2, 3, 255])));
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(zlib.crc32(png.subarray(12, 29)), 29);
  return png;
}

describe('hostile input', () => {
  it('refuses bytes that are not an image', async () => {
    const error = await failure(Buffer.from('<html>not a picture</html>'));
    expect(error.code).toBe('not_an_image');
    expect(error.message).toBe('sprite.png is not an image sharp can read');
    expect((await failure(Buffer.alloc(0))).code).toBe('not_an_image');
  });

  it('refuses a PNG claiming 100,000 × 100,000 pixels before decoding it', async () => {
    const error = await failure(await pngClaiming(100_000, 100_000));
    expect(error.code).toBe('too_large');
    // Refused on the header (a PNG's read by assetgen, other formats' by sharp) before any pixel is decoded.
    expect(error.message).toBe('sprite.png has more than 2,097,152 pixels');
    // Another format's header is read by sharp, whose pixel limit refuses it in the same words.
    const jpeg = await sharp({ create: { width: 2049, height: 1024, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer();
    expect((await failure(jpeg)).message).toBe('sprite.png has more than 2,097,152 pixels');
  });

  it('post steps read at most 2048×1024 pixels (POST_LIMITS: within 150 MiB), refused from the header', async () => {
    expect(POST_LIMITS.maxPixels).toBe(2048 * 1024);
    const error = await failure(await pngClaiming(2049, 1024));
    expect(error.code).toBe('too_large');
    expect(error.message).toBe('sprite.png has more than 2,097,152 pixels');
    // A step may not make one larger either.
    const small = await toPng(makePixels(2, 1, noisy(3)));
    expect((await failure(small, [{ resize: { width: 4096, kernel: 'nearest' } }])).message).toBe(
      'the resized image would be 4096×2048 pixels: the limit is 16384 a side and 2,097,152 pixels',
    );
    // Sides are bounded as before: a long strip within the pixel count is fine.
    const strip = await applyPostSteps(await toPng(makePixels(5000, 1, noisy(4))), parsePostSteps(['pot']));
    expect([strip.width, strip.height]).toEqual([8192, 1]);
  });

  it('the sizes image services return are read, and pot makes their power-of-two image', async () => {
    for (const [width, height] of [
      [1536, 1024],
      [1024, 1536],
      [1792, 1024],
      [1024, 1792],
    ]) {
      const result = await applyPostSteps(await toPng(makePixels(width, height, noisy(5))), parsePostSteps(['trim', 'pot']));
      expect([result.width, result.height]).toEqual(width > height ? [2048, 1024] : [1024, 2048]);
    }
  });

  it('palette and format: webp take at most 1,024² pixels (ENCODER_LIMITS), saying to resize first', async () => {
    expect(ENCODER_LIMITS.maxPixels).toBe(1024 * 1024);
    const wide = await toPng(makePixels(1025, 1024, noisy(6)));
    const palette = await failure(wide, [{ palette: 16 }]);
    expect(palette.code).toBe('too_large');
    expect(palette.message).toBe(
      'palette quantises at most 1,048,576 pixels (its encoder holds the image several times over); this image is 1025×1024: resize it first',
    );
    // Refused before the one-pipeline road encodes it, too.
    expect((await failure(wide, [{ format: 'webp' }])).message).toBe(
      'format: webp encodes at most 1,048,576 pixels (its encoder holds the image several times over); this image is 1025×1024: resize it first',
    );
    expect((await failure(wide, ['trim', { format: 'webp' }])).message).toContain('format: webp encodes at most 1,048,576 pixels');
    // Resized first, both run.
    const resized = await applyPostSteps(wide, parsePostSteps([{ resize: { width: 512 } }, { palette: 16 }]));
    expect([resized.width, resized.height]).toEqual([512, 512]);
  });

  it('refuses a side over 16,384 even when the pixel count is small', async () => {
    const error = await failure(await pngClaiming(20_000, 2));
    expect(error.code).toBe('too_large');
    expect(error.message).toContain('20000×2');
  });

  it('refuses a resize or a pot that would make an image past the limits', async () => {
    const small = await toPng(makePixels(3, 1, noisy(1)));
    expect((await failure(small, [{ resize: { width: 16_384, kernel: 'nearest' } }])).code).toBe('too_large');
    const wide = await toPng(makePixels(9_000, 1, noisy(2)));
    expect((await failure(wide, [{ resize: { width: 9_000, height: 9_000, fit: 'fill', kernel: 'nearest' } }])).message).toContain(
      '9000×9000',
    );
  });

  it('refuses SVG (active content) and TIFF: formats the service does not send', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>');
    const error = await failure(svg);
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toBe('sprite.png is svg: post steps and atlases take png, jpeg, webp, gif');
    const tiff = await sharp(makePixels(2, 2, noisy(1)).data, { raw: { width: 2, height: 2, channels: 4 } })
      .tiff()
      .toBuffer();
    expect((await failure(tiff)).code).toBe('unsupported_format');
  });

  it('refuses a truncated PNG as damaged', async () => {
    const png = await toPng(makePixels(64, 64, noisy(5)));
    const error = await failure(png.subarray(0, Math.floor(png.length / 2)));
    expect(error.code).toBe('damaged');
    expect(error.message).toMatch(/^sprite\.png \(png\) cannot be decoded: \S/);
  });
});

describe('valid input of other kinds', () => {
  it('reads grey, 16-bit, JPEG and GIF input as RGBA', async () => {
    const grey = await sharp(Buffer.alloc(6 * 4, 90), { raw: { width: 6, height: 4, channels: 1 } })
      .png()
      .toBuffer();
    const deep = await sharp(makePixels(5, 5, noisy(2)).data, { raw: { width: 5, height: 5, channels: 4 } })
      .png({ force: true })
      .toColourspace('rgb16')
      .toBuffer();
    const jpeg = await sharp(makePixels(8, 8, () => [10, 200, 30, 255]).data, { raw: { width: 8, height: 8, channels: 4 } })
      .jpeg()
      .toBuffer();
    const gif = await sharp(makePixels(4, 4, (x) => (x < 2 ? [255, 0, 0, 255] : [0, 0, 0, 0])).data, {
      raw: { width: 4, height: 4, channels: 4 },
    })
      .gif()
      .toBuffer();
    for (const [bytes, width] of [
      [grey, 6],
      [deep, 5],
      [jpeg, 8],
      [gif, 2],
    ] as const) {
      const result = await applyPostSteps(bytes, parsePostSteps(['trim']));
      const pixels = await readPixels(result.bytes);
      expect([result.width, pixels.width, pixels.format]).toEqual([width, width, 'png']);
    }
    expect((await sharp(deep).metadata()).depth).toBe('ushort');
  });
});
