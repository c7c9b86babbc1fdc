// Where downloaded assets go, and saving them. Names are built from ids (never from prompts or
// server text) and made safe for every filesystem, Windows included. `-o` is checked before any
// paid call, so credits are never spent on an asset that cannot be saved.
import fs from 'node:fs';
import path from 'node:path';
import { AbortedError, AssetgenError, OutputFileError, withHint } from '../client/errors.js';
import type { AssetgenClient } from '../client/types.js';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';

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
  options: { several?: boolean } = {},
): void {
  if (output === '-' && options.several)
    throw new UsageError('-o - (stdout) takes one file; this command may save several: give a folder.');
  if (output === '-' && ctx.out.json) throw new UsageError('-o - (bytes on stdout) cannot be combined with --json (a document on stdout).');
  if (output === undefined || output === '-' || isFolderSyntax(output)) return;
  const resolved = path.resolve(ctx.cwd, output);
  const stat = fs.statSync(resolved, { throwIfNoEntry: false });
  if (!stat || stat.isDirectory()) return;
  if (options.several) throw new UsageError(`-o ${output} is a file; this command saves its outputs into a folder.`);
  if (!stat.isFile()) throw new UsageError(`-o ${output} is not a regular file; assetgen only replaces regular files.`);
  if (!force) throw fileExists(resolved);
}

/** One file to fetch: where it is, and how to name it when `-o` names a folder. */
export interface OutputFile {
  url: string;
  /** File name stem from ids, e.g. `gen_123` or `run_9-node2`. */
  stem: string;
  contentType?: string;
  /** Extension when neither the content type nor the URL gives one. */
  fallbackExtension: string;
}

/**
 * Downloads each output to where `-o` says (stdout for `-`); returns the saved paths ('-' for
 * stdout). The assets are paid for already, so a failure says where each can still be fetched.
 */
export async function saveOutputs(
  ctx: CommandContext,
  client: AssetgenClient,
  files: OutputFile[],
  options: { output?: string; force?: boolean },
): Promise<string[]> {
  const saved: string[] = [];
  for (const file of files) {
    const name = safeFileName(`${file.stem}${extensionFor(file.url, file.contentType, file.fallbackExtension)}`);
    const target =
      files.length > 1 || options.output === undefined
        ? path.join(path.resolve(ctx.cwd, options.output ?? '.'), name)
        : resolveOutputPath(options.output, ctx.cwd, name);
    saved.push(await saveOne(ctx, client, file.url, target, Boolean(options.force)));
  }
  return saved;
}

async function saveOne(ctx: CommandContext, client: AssetgenClient, url: string, target: string, force: boolean): Promise<string> {
  try {
    if (target === '-') {
      await client.download(url, ctx.io.stdout, { signal: ctx.signal });
      return '-';
    }
    if (!force && fs.existsSync(target)) throw fileExists(target);
    const result = await client.download(url, target, { signal: ctx.signal, force });
    return result.path ?? target;
  } catch (error) {
    if (error instanceof AssetgenError && !(error instanceof AbortedError)) {
      withHint(error, `The asset is paid for and still available at ${url}`);
    }
    throw error;
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
