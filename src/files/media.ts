// The media assetgen saves, and how saved files are named. An allow-list: what the service says a
// file is (its content type, its URL) only suggests a name; the bytes decide. Anything else — SVG
// or HTML (active content), text, a format nobody asked for — is not saved. Names come from ids,
// made safe for every filesystem, and keep their extension when shortened.
import fs from 'node:fs';
import path from 'node:path';
import { openRegularSync } from './confine.js';

export type MediaKind = 'image' | 'video';

/** Every extension a saved file may have, and the kinds of asset it may hold (a GIF is a still or a clip). */
export const MEDIA_EXTENSIONS: Readonly<Record<string, readonly MediaKind[]>> = {
  '.png': ['image'],
  '.jpg': ['image'],
  '.jpeg': ['image'],
  '.webp': ['image'],
  '.gif': ['image', 'video'],
  '.mp4': ['video'],
  '.webm': ['video'],
  '.mov': ['video'],
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  'image/png': '.png',
  'image/apng': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
};

export const isMediaExtension = (extension: string): boolean => Object.hasOwn(MEDIA_EXTENSIONS, extension.toLowerCase());

/** Two spellings of one format. */
export const sameFormat = (a: string, b: string): boolean =>
  a.toLowerCase() === b.toLowerCase() || (['.jpg', '.jpeg'].includes(a.toLowerCase()) && ['.jpg', '.jpeg'].includes(b.toLowerCase()));

/** The extension the service's content type, else its URL, suggests; the fallback when neither names an allowed one. */
export function extensionFor(url: string | undefined, contentType: string | undefined, fallback: string): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type && CONTENT_TYPES[type]) return CONTENT_TYPES[type];
  if (url) {
    try {
      const extension = path.extname(new URL(url, 'http://x/').pathname).toLowerCase();
      if (isMediaExtension(extension)) return extension;
    } catch {
      // not a URL: use the fallback
    }
  }
  return fallback;
}

/** The first 8 bytes of every PNG: sniffed here, and written first by the mock's pictures and the previews' frames. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Bytes a file must start with to be saved, first match wins. The one place assetgen reads a
 * file's magic bytes: the save, media-info, the gallery (pipeline/gallery.ts) and the previews
 * (ui/preview/) all ask sniffExtension.
 */
const SIGNATURES: { extension: string; matches: (head: Buffer) => boolean }[] = [
  { extension: '.png', matches: (h) => h.subarray(0, 8).equals(PNG_SIGNATURE) },
  { extension: '.jpg', matches: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff },
  { extension: '.gif', matches: (h) => /^GIF8[79]a/.test(h.toString('latin1', 0, 6)) },
  { extension: '.webp', matches: (h) => h.toString('latin1', 0, 4) === 'RIFF' && h.toString('latin1', 8, 12) === 'WEBP' },
  { extension: '.webm', matches: (h) => h.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])) },
  // ISO media: the QuickTime brand is a .mov, every other brand an .mp4.
  { extension: '.mov', matches: (h) => h.toString('latin1', 4, 12) === 'ftypqt  ' },
  { extension: '.mp4', matches: (h) => h.toString('latin1', 4, 8) === 'ftyp' },
];

/** The allowed extension the first bytes show (16 are enough); undefined when they show none of them. */
export function sniffExtension(head: Uint8Array): string | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  return SIGNATURES.find((signature) => signature.matches(bytes))?.extension;
}

/** The first bytes of a file on disk (enough for sniffExtension). */
export function readHead(file: string): Buffer {
  const { fd } = openRegularSync(file);
  try {
    const head = Buffer.alloc(16);
    return head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
  } finally {
    fs.closeSync(fd);
  }
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;
/** Longest file name written: well under every filesystem's 255. */
export const MAX_NAME_LENGTH = 120;

/**
 * A file name that is valid on Windows, macOS and Linux, at most MAX_NAME_LENGTH long: a media
 * extension is kept and the stem shortened instead.
 */
export function safeFileName(name: string): string {
  let safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[.\s]+|[.\s]+$/g, '');
  const stem = safe.split('.')[0] ?? '';
  if (!safe || WINDOWS_RESERVED.test(stem)) safe = `asset_${safe}`;
  const extension = path.extname(safe);
  if (!isMediaExtension(extension)) return safe.slice(0, MAX_NAME_LENGTH);
  return `${safe.slice(0, safe.length - extension.length).slice(0, MAX_NAME_LENGTH - extension.length)}${extension}`;
}
