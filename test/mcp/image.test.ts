// generate_image's image content: inline up to the cap, a note (and no bytes) above it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { IMAGE_INLINE_CAP, imageContent } from '../../src/mcp/tools/assets.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-image-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('sends a small image inline and skips a large one with a note', () => {
  const small = path.join(dir, 'small.png');
  fs.writeFileSync(small, Buffer.alloc(100, 1));
  expect(imageContent(small)).toEqual([{ type: 'image', mimeType: 'image/png', data: Buffer.alloc(100, 1).toString('base64') }]);
  const large = path.join(dir, 'large.png');
  fs.writeFileSync(large, Buffer.alloc(IMAGE_INLINE_CAP + 1));
  const [note] = imageContent(large);
  expect(note).toMatchObject({ type: 'text', text: expect.stringContaining('inline cap') });
  expect(imageContent(path.join(dir, 'clip.mp4'))[0]).toMatchObject({ type: 'text' });
});
