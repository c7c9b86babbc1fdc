// generate_image's image content: inline up to the cap; above it, a downscaled PNG, or a note when
// the file cannot be decoded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { IMAGE_INLINE_CAP, imageContent, INLINE_MAX_SIDE } from '../../src/mcp/tools/assets.js';
import { decodePng, encodePng } from '../../src/ui/preview/png.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-image-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('sends a small image inline, and a note for a large file it cannot decode', () => {
  const small = path.join(dir, 'small.png');
  fs.writeFileSync(small, Buffer.alloc(100, 1));
  expect(imageContent(small)).toEqual([{ type: 'image', mimeType: 'image/png', data: Buffer.alloc(100, 1).toString('base64') }]);
  const large = path.join(dir, 'large.png');
  fs.writeFileSync(large, Buffer.alloc(IMAGE_INLINE_CAP + 1));
  const [note] = imageContent(large);
  expect(note).toMatchObject({ type: 'text', text: expect.stringContaining('inline cap') });
  expect(imageContent(path.join(dir, 'clip.mp4'))[0]).toMatchObject({ type: 'text' });
});

it('downscales a large PNG to a decodable inline PNG of at most 768 px a side, and says so', () => {
  // 1024×288 of full-colour noise: incompressible, so over the inline cap as a PNG (4 bytes a
  // pixel) and under it once shrunk (to 512×144); small enough to make, encode and shrink at once
  // on a loaded machine (a 2048×1536 image took seconds of CPU). Seeded: the same bytes each run.
  const width = 1024;
  const height = 288;
  const data = noise(width * height * 4, 26);
  const big = path.join(dir, 'big.png');
  fs.writeFileSync(big, encodePng({ width, height, data }));
  expect(fs.statSync(big).size).toBeGreaterThan(IMAGE_INLINE_CAP);
  const [image, note] = imageContent(big);
  expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
  const shown = decodePng(Buffer.from((image as { data: string }).data, 'base64'));
  expect(Math.max(shown.width, shown.height)).toBeLessThanOrEqual(INLINE_MAX_SIDE);
  expect(shown.width / shown.height).toBeCloseTo(width / height, 1);
  expect(Buffer.from((image as { data: string }).data, 'base64').length).toBeLessThanOrEqual(IMAGE_INLINE_CAP);
  expect(note).toMatchObject({ type: 'text', text: expect.stringMatching(/downscaled to 512×144/) });
});

/** `length` bytes of xorshift32 noise from `seed`. */
function noise(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed;
  for (let index = 0; index < length; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  return bytes;
}
