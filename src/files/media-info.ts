// What a saved file holds: its format and, for images, its pixel size, read from the header alone
// (a few bytes; a JPEG's markers up to its frame header). An agent asked for "a 64x64 icon" learns
// what it got without opening the file. Videos other than GIF report their format only: their size
// sits deep in a container (an MP4's track header), not worth a parser for a field nobody relies on.
import fs from 'node:fs';
import path from 'node:path';
import { sniffExtension } from './media.js';
import { openRegularSync } from './confine.js';

// `json`: a sprite sheet's atlas data, the one file assetgen saves beside media that is not media. A
// reader of `media` expects one entry per saved file (docs/cli.md: "in the order of saved"), and a
// null format there means "unreadable": so the data file is listed, as JSON, with no pixel size.
export type MediaFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'mp4' | 'webm' | 'mov' | 'json';

export interface MediaInfo {
  path: string;
  format: MediaFormat | null;
  /** Pixels; null when the header does not say (a video container, a damaged file). */
  width: number | null;
  height: number | null;
}

const FORMAT_OF: Readonly<Record<string, MediaFormat>> = {
  '.png': 'png',
  '.jpg': 'jpeg',
  '.gif': 'gif',
  '.webp': 'webp',
  '.mp4': 'mp4',
  '.webm': 'webm',
  '.mov': 'mov',
};

/** How far into a JPEG the frame header is looked for (EXIF and ICC segments come first). */
const JPEG_SCAN_LIMIT = 1024 * 1024;

/** The format and pixel size of a saved file; never throws (a file it cannot read is all nulls). */
export function mediaInfo(file: string): MediaInfo {
  const unknown: MediaInfo = { path: file, format: null, width: null, height: null };
  let fd: number | undefined;
  try {
    ({ fd } = openRegularSync(file));
    const head = Buffer.alloc(32);
    const read = fs.readSync(fd, head, 0, head.length, 0);
    const bytes = head.subarray(0, read);
    const extension = sniffExtension(bytes) ?? '';
    const format = FORMAT_OF[extension] ?? (isJsonData(file, bytes) ? 'json' : null);
    const size = format ? sizeOf(format, bytes, fd) : undefined;
    return { path: file, format, width: size?.[0] ?? null, height: size?.[1] ?? null };
  } catch {
    return unknown;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** A `.json` file that starts as a JSON object or array does (a sheet's atlas data). */
const isJsonData = (file: string, head: Buffer): boolean =>
  path.extname(file).toLowerCase() === '.json' && /^\s*[[{]/.test(head.toString('latin1'));

function sizeOf(format: MediaFormat, head: Buffer, fd: number): [number, number] | undefined {
  switch (format) {
    case 'png':
      // The IHDR chunk comes first: width and height at bytes 16 and 20.
      return head.length >= 24 && head.toString('latin1', 12, 16) === 'IHDR'
        ? positive(head.readUInt32BE(16), head.readUInt32BE(20))
        : undefined;
    case 'gif':
      return head.length >= 10 ? positive(head.readUInt16LE(6), head.readUInt16LE(8)) : undefined;
    case 'webp':
      return webpSize(head);
    case 'jpeg':
      return jpegSize(fd);
    default:
      return undefined;
  }
}

function webpSize(head: Buffer): [number, number] | undefined {
  if (head.length < 30) return undefined;
  const chunk = head.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return positive(head.readUInt16LE(26) & 0x3fff, head.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = head.readUInt32LE(21);
    return positive((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') return positive(head.readUIntLE(24, 3) + 1, head.readUIntLE(27, 3) + 1);
  return undefined;
}

/** Walks the JPEG's marker segments to its start-of-frame (SOF0–SOF15 but DHT, JPG, DAC). */
function jpegSize(fd: number): [number, number] | undefined {
  const segment = Buffer.alloc(9);
  let offset = 2;
  while (offset < JPEG_SCAN_LIMIT) {
    const read = fs.readSync(fd, segment, 0, 9, offset);
    if (read < 4 || segment[0] !== 0xff) return undefined;
    const marker = segment[1];
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return read < 9 ? undefined : positive(segment.readUInt16BE(7), segment.readUInt16BE(5));
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image, or scan data before any frame
    offset += 2 + segment.readUInt16BE(2);
  }
  return undefined;
}

const positive = (width: number, height: number): [number, number] | undefined => (width > 0 && height > 0 ? [width, height] : undefined);
