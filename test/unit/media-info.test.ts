// The format and pixel size of a saved file, read from its header: every image format assetgen
// saves, videos by format, and files it cannot read as nulls (never a throw).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mediaInfo } from '../../src/files/media-info.js';
import { renderVideo } from '../../src/mock/media/gif.js';
import { renderPng } from '../../src/mock/media/png.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-media-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Buffer): string {
  const target = path.join(dir, name);
  fs.writeFileSync(target, bytes);
  return target;
}

/** A JPEG's first segments: SOI, an APP1 of `appBytes` (EXIF sits there), fill bytes, a DHT, then SOF2. */
function jpeg(width: number, height: number, appBytes = 100): Buffer {
  const app = Buffer.alloc(2 + 2 + appBytes);
  app.writeUInt16BE(0xffe1, 0);
  app.writeUInt16BE(2 + appBytes, 2);
  const dht = Buffer.from([0xff, 0xc4, 0x00, 0x04, 0x00, 0x00]);
  const sof = Buffer.alloc(19);
  sof.writeUInt16BE(0xffc2, 0);
  sof.writeUInt16BE(17, 2);
  sof[4] = 8;
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app, Buffer.from([0xff]), dht, sof, Buffer.from([0xff, 0xd9])]);
}

function webp(chunk: 'VP8 ' | 'VP8L' | 'VP8X', width: number, height: number): Buffer {
  const bytes = Buffer.alloc(40);
  bytes.write('RIFF', 0, 'latin1');
  bytes.writeUInt32LE(32, 4);
  bytes.write('WEBP', 8, 'latin1');
  bytes.write(chunk, 12, 'latin1');
  if (chunk === 'VP8 ') {
    bytes.writeUInt16LE(width, 26);
    bytes.writeUInt16LE(height, 28);
  } else if (chunk === 'VP8L') {
    bytes[20] = 0x2f;
    bytes.writeUInt32LE(((height - 1) << 14) | (width - 1), 21);
  } else {
    bytes.writeUIntLE(width - 1, 24, 3);
    bytes.writeUIntLE(height - 1, 27, 3);
  }
  return bytes;
}

describe('mediaInfo', () => {
  it('reads the pixel size of PNG, GIF, JPEG and WebP files from their headers', () => {
    expect(mediaInfo(file('a.png', renderPng('icon-forge', 'potion')))).toMatchObject({ format: 'png', width: 128, height: 128 });
    expect(mediaInfo(file('a.gif', renderVideo('motion-director', 'torch', 2)))).toMatchObject({ format: 'gif', width: 96, height: 96 });
    expect(mediaInfo(file('a.jpg', jpeg(640, 480)))).toMatchObject({ format: 'jpeg', width: 640, height: 480 });
    // The frame header past a 60 KB EXIF segment is still found.
    expect(mediaInfo(file('b.jpg', jpeg(64, 32, 60_000)))).toMatchObject({ format: 'jpeg', width: 64, height: 32 });
    expect(mediaInfo(file('a.webp', webp('VP8 ', 300, 200)))).toMatchObject({ format: 'webp', width: 300, height: 200 });
    expect(mediaInfo(file('b.webp', webp('VP8L', 64, 48)))).toMatchObject({ format: 'webp', width: 64, height: 48 });
    expect(mediaInfo(file('c.webp', webp('VP8X', 4000, 3000)))).toMatchObject({ format: 'webp', width: 4000, height: 3000 });
  });

  it('names the format of a video container without a size, and gives nulls for what it cannot read', () => {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(16)]);
    expect(mediaInfo(file('a.mp4', mp4))).toEqual({ path: path.join(dir, 'a.mp4'), format: 'mp4', width: null, height: null });
    const truncated = jpeg(10, 10).subarray(0, 50);
    expect(mediaInfo(file('c.jpg', truncated))).toMatchObject({ format: 'jpeg', width: null, height: null });
    expect(mediaInfo(file('a.txt', Buffer.from('not media')))).toMatchObject({ format: null, width: null, height: null });
    expect(mediaInfo(path.join(dir, 'missing.png'))).toMatchObject({ format: null, width: null, height: null });
  });

  it("names a sheet's atlas data `json`, with no pixel size; text that is not JSON data stays unknown", () => {
    const data = file('icons.json', Buffer.from('{\n  "frames": {},\n  "meta": { "size": { "w": 32, "h": 16 } }\n}\n'));
    expect(mediaInfo(data)).toEqual({ path: data, format: 'json', width: null, height: null });
    expect(mediaInfo(file('notes.json', Buffer.from('not json')))).toMatchObject({ format: null });
    expect(mediaInfo(file('data.txt', Buffer.from('{"frames": {}}')))).toMatchObject({ format: null });
  });
});
