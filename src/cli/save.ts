// Where downloaded assets go, and saving them. Names are built from ids (never from prompts or
// server text) and made safe for every filesystem, Windows included. `-o` is checked before any
// paid call, so credits are never spent on an asset that cannot be saved.
import fs from 'node:fs';
import path from 'node:path';
import { AbortedError, AssetgenError, OutputFileError, UnexpectedResponseError, withHint } from '../client/errors.js';
import { redactUrl } from '../client/redact.js';
import type { AssetgenClient } from '../client/types.js';
import {
  checkWritableFolder,
  discardTemp,
  folderIn,
  makeFolder,
  moveIntoPlace,
  PathRefusedError,
  placeIn,
  refuseControlCharacters,
  tempFor,
  type Place,
} from '../files/confine.js';
import {
  extensionFor,
  isMediaExtension,
  MEDIA_EXTENSIONS,
  readHead,
  safeFileName,
  sameFormat,
  sniffExtension,
  type MediaKind,
} from '../files/media.js';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import { transferProgress } from './transfer.js';

/** Extensions that name one kind of asset only: `-o sword.mp4` for an image is a mistake. */
const kindOfExtension = (extension: string): 'image' | 'video' | undefined => {
  const kinds = MEDIA_EXTENSIONS[extension.toLowerCase()];
  return kinds?.length === 1 ? kinds[0] : undefined;
};
const ALLOWED = Object.keys(MEDIA_EXTENSIONS).join(', ');

const isFolderSyntax = (output: string): boolean => /[\\/]$/.test(output);
const isFolder = (file: string): boolean => fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** Whether `-o` names a folder (a trailing separator, or an existing directory), where files get the service's names. */
export const namesFolder = (output: string, cwd: string): boolean => isFolderSyntax(output) || isFolder(path.resolve(cwd, output));

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
 * The folder a single command's outputs must stay inside (src/files/confine.ts): the caller's
 * (an MCP call's working directory), else the folder `-o` names — the user named it, so links on
 * the way to it are followed — else the current directory.
 */
export function outputRoot(ctx: CommandContext, output: string | undefined): string {
  if (ctx.outputRoot !== undefined) return ctx.outputRoot;
  if (output === undefined || output === '-') return ctx.cwd;
  const resolved = path.resolve(ctx.cwd, output);
  return isFolderSyntax(output) || isFolder(resolved) ? resolved : path.dirname(resolved);
}

/**
 * Checks `-o` before a paid call: bytes on stdout cannot mix with the --json document; the path
 * stays inside its root (real paths); an existing file needs --force (and must be a regular file,
 * never a link); a command that may save several files needs a folder. saveOutputs checks again
 * with the same functions.
 */
export function checkOutputTarget(
  ctx: CommandContext,
  output: string | undefined,
  force: boolean,
  options: {
    several?: boolean;
    kind?: MediaKind;
    /**
     * The name the file (or, with `several`, each file's name up to `-<node>`) gets in a folder,
     * where it is known before paying (a job being waited for): one there already is refused too.
     */
    stem?: string;
  } = {},
): void {
  if (output === '-' && options.several)
    throw new UsageError('-o - (stdout) takes one file; this command may save several: give a folder.');
  if (output === '-' && ctx.out.json) throw new UsageError('-o - (bytes on stdout) cannot be combined with --json (a document on stdout).');
  // The bytes would land in the terminal (and the paid file be lost): refused before paying.
  if (output === '-' && ctx.io.stdoutIsTTY)
    throw new UsageError(
      '-o - writes the file to stdout, which is a terminal here.',
      'Pipe it (`-o - > sword.png`, `-o - | …`), or give a file name.',
    );
  if (output === '-') return;
  if (output === undefined) {
    // The current directory (an MCP call's own folder): written in, and maybe holding the job's files.
    const folder = outputRoot(ctx, undefined);
    usage(() => checkWritableFolder(folder, folder));
    if (options.stem !== undefined && !force) refuseEarlierOutputs(ctx, folder, options);
    return;
  }
  usage(() => refuseControlCharacters(output, ctx.frontEnd.option('output')));
  // `-o <path>` on the command line, the tool's own argument over MCP.
  const named = ctx.frontEnd.option('output', output);
  const root = outputRoot(ctx, output);
  const resolved = path.resolve(ctx.cwd, output);
  if (isFolderSyntax(output) || isFolder(resolved) || options.several) {
    if (options.several && !isFolderSyntax(output) && !isFolder(resolved) && fs.lstatSync(resolved, { throwIfNoEntry: false }))
      throw new UsageError(`${named} is a file; this command saves its outputs into a folder.`);
    const folder = usage(() => folderIn(root, resolved, named));
    usage(() => checkWritableFolder(folder, named));
    if (options.stem !== undefined && !force) refuseEarlierOutputs(ctx, folder, options);
    return;
  }
  const extension = path.extname(output).toLowerCase();
  if (extension && !isMediaExtension(extension))
    throw new UsageError(
      `${named}: ${extension} is not a media type assetgen saves (${ALLOWED}).`,
      'Give the file one of those extensions, none (the one its bytes show is added), or name a folder ending in /.',
    );
  const extensionKind = kindOfExtension(extension);
  if (options.kind && extensionKind && extensionKind !== options.kind) {
    throw new UsageError(
      `${named} names ${extensionKind === 'image' ? 'an image' : 'a video'} file, but this command makes ${options.kind === 'image' ? 'an image' : 'a video'}.`,
    );
  }
  usage(() => writable(ctx, placeIn(root, resolved, named), force, resolved));
  // The file is named by the type its bytes show (finalTarget): `-o sword` becomes sword.png, and
  // `-o sword.jpg` sword.png when the service sends a PNG. Any of those names taken is refused too.
  if (!force) {
    const stem = isMediaExtension(extension) ? resolved.slice(0, -extension.length) : resolved;
    for (const candidate of extensionsOf(options.kind).map((other) => `${stem}${other}`)) {
      if (candidate !== resolved && fs.lstatSync(candidate, { throwIfNoEntry: false }))
        throw new OutputFileError(...existingTarget(ctx, candidate, named));
    }
  }
}

/** The extensions a file of this kind may be saved with (any kind: all of them). */
const extensionsOf = (kind: MediaKind | undefined): string[] =>
  Object.entries(MEDIA_EXTENSIONS)
    .filter(([, kinds]) => kind === undefined || kinds.includes(kind))
    .map(([extension]) => extension);

/** A folder's files that the outputs named `stem` (or `stem-<node>`, with `several`) would be saved over: refused before paying. */
function refuseEarlierOutputs(ctx: CommandContext, folder: string, options: { several?: boolean; kind?: MediaKind; stem?: string }): void {
  const stem = safeFileName(options.stem!);
  const names = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  const taken = options.several
    ? names.find((name) => name.startsWith(`${stem}-`) && isMediaExtension(path.extname(name)))
    : extensionsOf(options.kind)
        .map((extension) => `${stem}${extension}`)
        .find((name) => names.includes(name));
  if (taken !== undefined) throw new OutputFileError(...existingTarget(ctx, path.join(folder, taken)));
}

/** "That file is there already", before paying: what to say, and what to do about it. */
function existingTarget(ctx: CommandContext, file: string, named?: string): [string, string] {
  const words = ctx.frontEnd;
  const shown = displayPath(ctx, file);
  return [
    named
      ? `${shown} already exists: assetgen names the file by the type its bytes show, so ${named} may be saved as ${shown}.`
      : `${shown} already exists.`,
    `Pass ${words.option('force')} to overwrite it, or choose another path with ${words.option('output')}. Nothing was charged.`,
  ];
}

/** A refusal of the confinement rule before anything was sent: a usage error (exit 2). */
function usage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof PathRefusedError) throw new UsageError(error.message, error.hint);
    throw error;
  }
}

/** What may be at a place a file is saved to: nothing, or (with force) a regular file. Never a link. */
function writable(ctx: CommandContext, place: Place, force: boolean, shown: string): void {
  checkWritableFolder(place.dir, shown);
  if (place.entry === 'none') return;
  if (place.entry === 'link')
    throw new PathRefusedError(
      `${shown} is a symbolic link; assetgen never writes through a link, nor replaces one.`,
      `Remove the link, or choose another path with ${ctx.frontEnd.option('output')}.`,
    );
  if (place.entry !== 'file') throw new PathRefusedError(`${shown} is not a regular file; assetgen only replaces regular files.`);
  if (!force) throw fileExists(ctx, shown);
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

export interface SaveOptions {
  output?: string;
  force?: boolean;
  onSaved?: (file: SavedFile) => void;
  /** The folder every file must stay inside (default: outputRoot); a build's project. */
  root?: string;
  /** Why a path may not be written (another asset owns it), or undefined when it may. */
  refuse?: (file: string) => string | undefined;
}

/**
 * Downloads each output to where `-o` says (stdout for `-`); returns the saved paths ('-' for
 * stdout). The assets are paid for already, so a failure says where each can still be fetched.
 */
export async function saveOutputs(
  ctx: CommandContext,
  client: AssetgenClient,
  files: OutputFile[],
  options: SaveOptions,
): Promise<string[]> {
  const saved: string[] = [];
  const root = options.root ?? outputRoot(ctx, options.output);
  for (const file of files) {
    const extension = extensionFor(file.url, file.contentType, file.fallbackExtension);
    const name = safeFileName(`${file.stem}${extension}`);
    const single = files.length === 1 && options.output !== undefined;
    const target = single
      ? resolveOutputPath(options.output, ctx.cwd, name)
      : path.join(path.resolve(ctx.cwd, options.output ?? '.'), name);
    saved.push(await saveOne(ctx, client, file, target, { ...options, root, userNamed: single && path.basename(target) !== name }));
  }
  return saved;
}

/**
 * The name a file gets once its bytes are known: the extension they show, replacing a media
 * extension of another format (`-o sword.jpg` holding a PNG becomes sword.png, and the user is
 * told), added when there is none.
 */
function finalTarget(ctx: CommandContext, target: string, sniffed: string, userNamed: boolean): string {
  const given = path.extname(target);
  if (isMediaExtension(given) && sameFormat(given, sniffed)) return target;
  const corrected = isMediaExtension(given) ? `${target.slice(0, -given.length)}${sniffed}` : `${target}${sniffed}`;
  if (userNamed)
    ctx.out.warn(
      `The service sent a ${sniffed.slice(1).toUpperCase()} file: saving it as ${displayPath(ctx, corrected)}${given ? `, not ${given}` : ''}.`,
    );
  return corrected;
}

async function saveOne(
  ctx: CommandContext,
  client: AssetgenClient,
  file: OutputFile,
  target: string,
  options: SaveOptions & { root: string; userNamed: boolean },
): Promise<string> {
  const { url } = file;
  const force = Boolean(options.force);
  const progress = transferProgress(ctx, target === '-' ? 'to stdout' : path.basename(target));
  const transfer = { signal: ctx.signal, expectedBytes: file.bytes, onProgress: progress.onProgress };
  let temp: string | undefined;
  try {
    if (target === '-') {
      await client.download(url, ctx.io.stdout, transfer);
      return '-';
    }
    // The same check as before paying, now on the real folder the file is written in (made, and
    // swept of the temp files of saves a kill cut short).
    const first = checkPlace(ctx, options, target, force);
    const dir = makeFolder(options.root, first, displayPath(ctx, target));
    // An assetgen temp file (src/files/temp-files.ts), created exclusively by the download.
    temp = tempFor(path.join(dir, path.basename(first.file)));
    const result = await client.download(url, temp, { ...transfer, sha256: Boolean(options.onSaved), inPlace: true });
    const sniffed = sniffExtension(result.head ?? readHead(temp));
    if (!sniffed) {
      const type = result.contentType ?? file.contentType;
      throw new UnexpectedResponseError(
        `The service sent ${type ? `"${type.slice(0, 60).replace(/[^\x20-\x7e]/g, '?')}"` : 'a file'} that is not an image or video assetgen saves (${ALLOWED}); it was not saved.`,
        undefined,
      );
    }
    const place = checkPlace(ctx, options, finalTarget(ctx, target, sniffed, options.userNamed), force);
    if (place.dir !== dir) throw new PathRefusedError(`${displayPath(ctx, place.path)} changed while it was being written.`);
    if (!(await moveIntoPlace(temp, place.file, force))) throw fileExists(ctx, displayPath(ctx, place.path));
    temp = undefined;
    if (options.onSaved && result.sha256) options.onSaved({ path: place.path, size: result.bytes, sha256: result.sha256 });
    return place.path;
  } catch (error) {
    if (temp) await discardTemp(temp);
    const effective = error instanceof PathRefusedError ? new OutputFileError(error.message, error.hint) : error;
    if (effective instanceof AssetgenError && !(effective instanceof AbortedError)) {
      withHint(effective, `The asset is paid for and still available at ${redactUrl(url)}`);
    }
    throw effective;
  } finally {
    progress.stop();
  }
}

/** placeIn, what may be there, and the caller's own refusal (another asset's file). */
function checkPlace(ctx: CommandContext, options: SaveOptions & { root: string }, target: string, force: boolean): Place {
  const shown = displayPath(ctx, target);
  const place = placeIn(options.root, target, shown);
  writable(ctx, place, force, shown);
  const refusal = options.refuse?.(place.path);
  if (refusal) throw new OutputFileError(refusal, 'Give the assets different outputs.');
  return place;
}

/** The one wording of "that file is there already", in the words of the caller's front end. */
function fileExists(ctx: CommandContext, file: string): OutputFileError {
  const words = ctx.frontEnd;
  return new OutputFileError(
    `${file} already exists.`,
    `Pass ${words.option('force')} to overwrite it, or choose another path with ${words.option('output')}.`,
  );
}

/** A path as a user would type it: relative to the current directory when inside it. */
export function displayPath(ctx: CommandContext, file: string): string {
  if (file === '-') return '-';
  const relative = path.relative(ctx.cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
