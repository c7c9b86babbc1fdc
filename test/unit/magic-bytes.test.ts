// A file's format is read from its first bytes in one place, src/files/media.ts (sniffExtension):
// the save, media-info, the gallery and the previews all ask it, so they can never disagree on
// what a file is. The mock (src/mock/) writes media bytes; it reads none.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PNG_SIGNATURE, sniffExtension } from '../../src/files/media.js';
import { sniffMedia } from '../../src/pipeline/gallery.js';
import { sniff } from '../../src/ui/preview/image.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
/** Where magic bytes may be spelled out. */
const HOME = 'files/media.ts';
/** The signatures of the formats assetgen saves, however a file might spell them. */
const MAGIC = /0x89\b|\\x89|0xff,\s*0xd8|\\xff\\xd8|0xd8\b|\bRIFF\b|\bWEBP\b|GIF8[79]|\bftyp|0x1a,\s*0x45|0xdf,\s*0xa3/;

describe('magic bytes', () => {
  it(`are spelled out only in src/${HOME}`, () => {
    const found: string[] = [];
    for (const file of fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
      if (!/\.[cm]?ts$/.test(file) || file === HOME || file.startsWith(`mock${path.sep}`)) continue;
      fs.readFileSync(path.join(SRC, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (MAGIC.test(line)) found.push(`src/${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('the save, the gallery and the previews read every format alike', () => {
    const iso = (brand: string): Buffer => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from(`ftyp${brand}`, 'latin1')]);
    const heads: [Buffer, string | undefined, string | undefined, string][] = [
      [Buffer.concat([PNG_SIGNATURE, Buffer.alloc(8)]), '.png', 'image/png', 'png'],
      [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), '.jpg', 'image/jpeg', 'is a JPEG image'],
      [Buffer.from('GIF89a\x10\x00\x10\x00', 'latin1'), '.gif', 'image/gif', 'gif'],
      [Buffer.from('GIF87a\x10\x00\x10\x00', 'latin1'), '.gif', 'image/gif', 'gif'],
      [Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8L', 'latin1'), '.webp', 'image/webp', 'is a WebP image'],
      [iso('isom'), '.mp4', 'video/mp4', 'is an MP4/MOV video'],
      [iso('qt  '), '.mov', undefined, 'is an MP4/MOV video'],
      [
        Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('\x42\x82\x84webm', 'latin1')]),
        '.webm',
        'video/webm',
        'is a WebM video',
      ],
      // A PNG's first four bytes alone are not a PNG; nor is markup named like one.
      [PNG_SIGNATURE.subarray(0, 4), undefined, undefined, 'is not a PNG or GIF image'],
      [Buffer.from('<svg onload="alert(1)"/>'), undefined, undefined, 'is not a PNG or GIF image'],
    ];
    const previewOf = (head: Buffer): string => {
      try {
        return sniff(head);
      } catch (error) {
        return (error as Error).message.replace(/; previews decode PNG and GIF only$/, '');
      }
    };
    for (const [head, extension, mediaType, preview] of heads) {
      const name = head.toString('latin1', 0, 12);
      expect(sniffExtension(head), name).toBe(extension);
      expect(sniffMedia(head, 'asset.bin'), name).toBe(mediaType);
      expect(previewOf(head), name).toBe(preview);
    }
  });
});
