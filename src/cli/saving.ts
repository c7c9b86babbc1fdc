// Deciding where a downloaded asset goes. Names are built from ids (never from prompts or server
// text) and made safe for every filesystem, Windows included.
import fs from 'node:fs';
import path from 'node:path';
import { AbortedError, AssetgenError, OutputFileError } from '../client/errors.js';
import { UsageError } from './errors.js';
import type { AssetgenClient } from '../index.js';
import type { CommandContext } from './context.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/apng': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
};

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;

/** A file name that is valid on Windows, macOS and Linux. */
export function safeFileName(name: string): string {
  let safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[.\s]+|[.\s]+$/g, '');
  const stem = safe.split('.')[0] ?? '';
  if (!safe || WINDOWS_RESERVED.test(stem)) safe = `asset_${safe}`;
  return safe.slice(0, 120);
}

/** Picks an extension from the content type, else from the URL's path, else the fallback. */
export function extensionFor(url: string | undefined, contentType: string | undefined, fallback: string): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type && EXTENSIONS[type]) return EXTENSIONS[type];
  if (url) {
    try {
      const ext = path.extname(new URL(url, 'http://x/').pathname).toLowerCase();
      if (/^\.[a-z0-9]{1,5}$/.test(ext)) return ext;
    } catch {
      // not a URL: use the fallback
    }
  }
  return fallback;
}

/**
 * Where `-o` says to save one asset: `-` (stdout), a directory (existing, or written with a trailing
 * slash), or a file path. Without `-o`, the current directory.
 */
export function resolveOutputPath(output: string | undefined, cwd: string, fileName: string): string {
  if (output === '-') return '-';
  if (output === undefined) return path.join(cwd, fileName);
  const resolved = path.resolve(cwd, output);
  const looksLikeDir = /[\\/]$/.test(output) || (fs.existsSync(resolved) && fs.statSync(resolved).isDirectory());
  return looksLikeDir ? path.join(resolved, fileName) : resolved;
}

/**
 * Checks `-o` before a paid call, so credits are not spent on an asset that cannot be saved: an
 * existing file without --force, or bytes on stdout mixed with the --json document.
 */
export function checkOutputTarget(ctx: CommandContext, output: string | undefined, force: boolean): void {
  if (output === '-' && ctx.out.json) throw new UsageError('-o - (bytes on stdout) cannot be combined with --json (a document on stdout).');
  if (force || output === undefined || output === '-' || /[\\/]$/.test(output)) return;
  const resolved = path.resolve(ctx.cwd, output);
  if (fs.existsSync(resolved) && !fs.statSync(resolved).isDirectory()) throw fileExists(resolved);
}

/**
 * Downloads one asset to `target` (or stdout for `-`); returns the saved path, or `-`. The asset
 * is already paid for, so a failure says where it can still be fetched from.
 */
export async function saveAsset(ctx: CommandContext, client: AssetgenClient, url: string, target: string, force: boolean): Promise<string> {
  try {
    if (target === '-') {
      await client.download(url, ctx.io.stdout, { signal: ctx.signal });
      return '-';
    }
    if (!force && fs.existsSync(target)) throw fileExists(target);
    const result = await client.download(url, target, { signal: ctx.signal, force });
    return result.path ?? target;
  } catch (error) {
    if (!(error instanceof AssetgenError) || error instanceof AbortedError) throw error;
    const hint = [error.hint, `The asset is still available at ${url}`].filter(Boolean).join('\n');
    throw error instanceof OutputFileError
      ? new OutputFileError(error.message, hint)
      : new AssetgenError(`Could not save the asset: ${error.message}`, { code: error.code, hint, cause: error });
  }
}

function fileExists(file: string): OutputFileError {
  return new OutputFileError(`${file} already exists.`, 'Pass --force to overwrite it, or choose another path with -o.');
}

/** A path as a user would type it: relative to the current directory when inside it. */
export function displayPath(ctx: CommandContext, file: string): string {
  if (file === '-') return '-';
  const relative = path.relative(ctx.cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
