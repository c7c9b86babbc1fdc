// Where downloaded assets go, and saving them. Names are built from ids (never from prompts or
// server text) and made safe for every filesystem, Windows included. `-o` is checked before any
// paid call, so credits are never spent on an asset that cannot be saved.
import fs from 'node:fs';
import path from 'node:path';
import { AbortedError, AssetgenError, OutputFileError, withHint } from '../client/errors.js';
import { redactUrl } from '../client/redact.js';
import type { AssetgenClient } from '../client/types.js';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import { transferProgress } from './transfer.js';

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

/** Extensions that name one kind of asset only: `-o sword.mp4` for an image is a mistake. */
const KIND_OF_EXTENSION: Record<string, 'image' | 'video'> = {
  '.png': 'image',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.webp': 'image',
  '.mp4': 'video',
  '.webm': 'video',
  '.mov': 'video',
};
const MEDIA_EXTENSIONS = new Set([...Object.keys(KIND_OF_EXTENSION), '.gif']);
const sameFormat = (a: string, b: string): boolean => a === b || (['.jpg', '.jpeg'].includes(a) && ['.jpg', '.jpeg'].includes(b));

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

const isFolderSyntax = (output: string): boolean => /[\\/]$/.test(output);
const isFolder = (file: string): boolean => fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;

/**
 * Where `-o` says to save one asset: `-` (stdout), a folder (existing, or written with a trailing
 * slash), or a file path. Without `-o`, the current directory.
 */
export function resolveOutputPath(output: string | undefined, cwd: string, fileName: string): string {
  if (output === '-') return '-';
  if (output === undefined) return path.join(cwd, fileName);
  const resolved = path.resolve(cwd, output);
  return isFolderSyntax(output) || isFolder(resolved) ? path.join(resolved, fileName) : resolved;
}

/**
 * Checks `-o` before a paid call: bytes on stdout cannot mix with the --json document; an existing
 * file needs --force (and must be a regular file); a command that may save several files needs a
 * folder.
 */
export function checkOutputTarget(
  ctx: CommandContext,
  output: string | undefined,
  force: boolean,
  options: { several?: boolean; kind?: 'image' | 'video' } = {},
): void {
  if (output === '-' && options.several)
    throw new UsageError('-o - (stdout) takes one file; this command may save several: give a folder.');
  if (output === '-' && ctx.out.json) throw new UsageError('-o - (bytes on stdout) cannot be combined with --json (a document on stdout).');
  if (output === undefined || output === '-' || isFolderSyntax(output)) return;
  const resolved = path.resolve(ctx.cwd, output);
  const extensionKind = KIND_OF_EXTENSION[path.extname(output).toLowerCase()];
  if (options.kind && extensionKind && extensionKind !== options.kind && !isFolder(resolved)) {
    throw new UsageError(
      `-o ${output} names ${extensionKind === 'image' ? 'an image' : 'a video'} file, but this command makes ${options.kind === 'image' ? 'an image' : 'a video'}.`,
    );
  }
  const stat = fs.statSync(resolved, { throwIfNoEntry: false });
  if (!stat || stat.isDirectory()) return;
  if (options.several) throw new UsageError(`-o ${output} is a file; this command saves its outputs into a folder.`);
  if (!stat.isFile()) throw new UsageError(`-o ${output} is not a regular file; assetgen only replaces regular files.`);
  if (!force) throw fileExists(resolved);
}

/** A file saved to disk, hashed as it was written (for a caller that records it, like a build's lock). */
export interface SavedFile {
  path: string;
  size: number;
  sha256: string;
}

/** One file to fetch: where it is, and how to name it when `-o` names a folder. */
export interface OutputFile {
  url: string;
  /** File name stem from ids, e.g. `gen_123` or `run_9-node2`. */
  stem: string;
  contentType?: string;
  /** Extension when neither the content type nor the URL gives one. */
  fallbackExtension: string;
  /** The size the service announced, when it did: the download must match it. */
  bytes?: number;
}

/**
 * Downloads each output to where `-o` says (stdout for `-`); returns the saved paths ('-' for
 * stdout). The assets are paid for already, so a failure says where each can still be fetched.
 */
export async function saveOutputs(
  ctx: CommandContext,
  client: AssetgenClient,
  files: OutputFile[],
  options: { output?: string; force?: boolean; onSaved?: (file: SavedFile) => void },
): Promise<string[]> {
  const saved: string[] = [];
  for (const file of files) {
    const extension = extensionFor(file.url, file.contentType, file.fallbackExtension);
    const name = safeFileName(`${file.stem}${extension}`);
    const target =
      files.length > 1 || options.output === undefined
        ? path.join(path.resolve(ctx.cwd, options.output ?? '.'), name)
        : matchExtension(ctx, resolveOutputPath(options.output, ctx.cwd, name), extension);
    saved.push(await saveOne(ctx, client, file, target, Boolean(options.force), options.onSaved));
  }
  return saved;
}

/**
 * `-o sword.jpg` when the service sent a PNG: the file gets the extension of what it holds
 * (sword.png), and the user is told, rather than PNG bytes hiding behind .jpg.
 */
function matchExtension(ctx: CommandContext, target: string, extension: string): string {
  if (target === '-') return target;
  const given = path.extname(target).toLowerCase();
  if (!MEDIA_EXTENSIONS.has(given) || !MEDIA_EXTENSIONS.has(extension) || sameFormat(given, extension)) return target;
  const corrected = `${target.slice(0, -given.length)}${extension}`;
  ctx.out.warn(`The service sent a ${extension.slice(1).toUpperCase()} file: saving it as ${displayPath(ctx, corrected)}, not ${given}.`);
  return corrected;
}

async function saveOne(
  ctx: CommandContext,
  client: AssetgenClient,
  file: OutputFile,
  target: string,
  force: boolean,
  onSaved?: (file: SavedFile) => void,
): Promise<string> {
  const { url } = file;
  const progress = transferProgress(ctx, target === '-' ? 'to stdout' : path.basename(target));
  const options = { signal: ctx.signal, expectedBytes: file.bytes, onProgress: progress.onProgress };
  try {
    if (target === '-') {
      await client.download(url, ctx.io.stdout, options);
      return '-';
    }
    if (!force && fs.existsSync(target)) throw fileExists(target);
    const result = await client.download(url, target, { ...options, force, sha256: Boolean(onSaved) });
    const saved = result.path ?? target;
    if (onSaved && result.sha256) onSaved({ path: saved, size: result.bytes, sha256: result.sha256 });
    return saved;
  } catch (error) {
    if (error instanceof AssetgenError && !(error instanceof AbortedError)) {
      withHint(error, `The asset is paid for and still available at ${redactUrl(url)}`);
    }
    throw error;
  } finally {
    progress.stop();
  }
}

/** The one wording of "that file is there already". */
function fileExists(file: string): OutputFileError {
  return new OutputFileError(`${file} already exists.`, 'Pass --force to overwrite it, or choose another path with -o.');
}

/** A path as a user would type it: relative to the current directory when inside it. */
export function displayPath(ctx: CommandContext, file: string): string {
  if (file === '-') return '-';
  const relative = path.relative(ctx.cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
