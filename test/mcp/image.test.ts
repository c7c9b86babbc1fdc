// generate_image's image content: inline up to the cap; above it, a downscaled PNG, or a note when
// the file cannot be decoded.
import crypto from 'node:crypto';
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
  // 2048×1536 of 8-colour noise (~3 bits a pixel): over the inline cap as a PNG, under it once
  // shrunk, as a photo-like asset would be.
  const width = 2048;
  const height = 1536;
  const noise = crypto.randomBytes(width * height);
  const data = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    const bits = noise[p]!;
    data.set([bits & 1 ? 255 : 0, bits & 2 ? 255 : 0, bits & 4 ? 255 : 0, 255], p * 4);
  }
  const big = path.join(dir, 'big.png');
  fs.writeFileSync(big, encodePng({ width, height, data }));
  expect(fs.statSync(big).size).toBeGreaterThan(IMAGE_INLINE_CAP);
  const [image, note] = imageContent(big);
  expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
  const shown = decodePng(Buffer.from((image as { data: string }).data, 'base64'));
  expect(Math.max(shown.width, shown.height)).toBeLessThanOrEqual(INLINE_MAX_SIDE);
  expect(shown.width / shown.height).toBeCloseTo(width / height, 1);
  expect(Buffer.from((image as { data: string }).data, 'base64').length).toBeLessThanOrEqual(IMAGE_INLINE_CAP);
  expect(note).toMatchObject({ type: 'text', text: expect.stringMatching(/downscaled to \d+×\d+/) });
});
