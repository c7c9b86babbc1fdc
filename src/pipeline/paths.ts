// Paths inside the project: the rules for a manifest's `out` and for the paths a lock records.
// Both are relative to the project root (the manifest's directory), with forward slashes, and
// never leave it: prune deletes what the lock names, so a path that climbs out is never trusted.
import path from 'node:path';
import { hasControlCharacters } from '../files/confine.js';
import { MEDIA_EXTENSIONS } from '../files/media.js';
import type { AssetKind, OutputTarget } from './records.js';

/** Media extensions and the kinds of asset each may hold (a GIF may be a still or a clip). */
export const EXTENSION_KINDS: Readonly<Record<string, readonly AssetKind[]>> = MEDIA_EXTENSIONS;

const isAbsolute = (text: string): boolean => /^([A-Za-z]:)?\//.test(text);
const climbsOut = (normal: string): boolean => normal === '..' || normal.startsWith('../');

/**
 * Segments of letters, digits, `_` and `-`, with dots after the first character: relative, already
 * normal (no `.`, `..` or empty segment) and inside the project, as nearly every recorded path is.
 */
const PLAIN_PATH = /^[\w-][\w.-]*(?:\/[\w-][\w.-]*)*$/;

/** A path a lock may record: relative, normalised, forward slashes, inside the project. */
export function isProjectPath(file: string): boolean {
  if (PLAIN_PATH.test(file)) return true;
  return (
    !!file &&
    !hasControlCharacters(file) &&
    !file.includes('\\') &&
    !isAbsolute(file) &&
    path.posix.normalize(file) === file &&
    !climbsOut(file)
  );
}

/**
 * Reads an `out` value for an asset of `kind` (undefined: defaults.out): a folder when it ends in
 * "/", a file when it has a media extension of that kind. Backslashes count as slashes.
 */
export function parseOut(raw: string, kind: AssetKind | undefined): { target: OutputTarget } | { error: string } {
  if (hasControlCharacters(raw))
    return { error: `${JSON.stringify(raw)} contains a control character (NUL, newline, …): give a path of printable characters` };
  const text = raw.replaceAll('\\', '/');
  if (isAbsolute(text)) return { error: `${raw} is an absolute path: give a path inside the project (relative to the manifest)` };
  const normal = path.posix.normalize(text);
  if (climbsOut(normal)) return { error: `${raw} is outside the project (the manifest's directory)` };
  if (/^\.assetgen(\/|$)/i.test(normal))
    return { error: `${raw} is in .assetgen/, assetgen's own folder (kept originals): choose another` };
  if (text.endsWith('/')) return { target: { type: 'folder', dir: normal.replace(/\/+$/, '') || '.' } };
  if (kind === 'workflow') return { error: 'a workflow makes several files: give a folder ending in /' };
  const extension = path.posix.extname(normal).toLowerCase();
  const kinds = EXTENSION_KINDS[extension];
  if (!kinds) return { error: `end a folder with "/", or give the file a media extension (${Object.keys(EXTENSION_KINDS).join(', ')})` };
  // A sheet's atlas is an image.
  if (kind && !kinds.includes(kind === 'sheet' ? 'image' : kind))
    return { error: `${extension} is not ${kind === 'image' ? 'an image' : 'a video'} file` };
  return { target: { type: 'file', path: normal } };
}

/** A path without its extension, lower-cased: two outputs with one stem collide on some disks. */
export const stemOf = (file: string): string => file.slice(0, file.length - path.posix.extname(file).length).toLowerCase();

/** The stem an asset's single output gets: the file's own, or `<dir>/<id>` in a folder. */
export function outputStem(target: OutputTarget, id: string): string {
  return target.type === 'file' ? stemOf(target.path) : inFolder(target.dir, id).toLowerCase();
}

/** Whether `stem` is that of a frame of an output of stem `output` (a `slice` step's `<stem>-<n>`). */
export function isFrameStem(stem: string, output: string): boolean {
  return stem.length > output.length + 1 && stem.startsWith(`${output}-`) && /^[1-9]\d*$/.test(stem.slice(output.length + 1));
}

/**
 * Whether a recorded file is where `out` now puts it: the same stem (any extension), a frame of it
 * (`<stem>-<n>`, made by a `slice` step), or inside the folder.
 */
export function inTarget(file: string, id: string, target: OutputTarget): boolean {
  if (target.type === 'file') return stemOf(file) === stemOf(target.path) || isFrameStem(stemOf(file), stemOf(target.path));
  // dirname and basename by the last slash, which is what they do for a path that neither starts
  // nor ends with one (planning asks this of every recorded file).
  if (file.startsWith('/') || file.endsWith('/'))
    return path.posix.dirname(file) === target.dir && path.posix.basename(file).startsWith(id);
  const slash = file.lastIndexOf('/');
  return (slash === -1 ? '.' : file.slice(0, slash)) === target.dir && file.startsWith(id, slash + 1);
}

/** A frame's path: `<stem>-<n><ext>`. */
const FRAME_PATH = /^(.*-)([1-9]\d{0,5})(\.[^./]*)?$/;

/**
 * Project paths in the lock's order: by path, except that the frames of one output (`<stem>-<n>`)
 * go by frame number, so frame n is the n-th (`hero-2.png` before `hero-10.png`). A total order:
 * each path compares as (its text up to the frame number, the number, the extension).
 */
export function compareProjectPaths(a: string, b: string): number {
  const [headA, numberA, tailA] = pathKey(a);
  const [headB, numberB, tailB] = pathKey(b);
  if (headA !== headB) return headA < headB ? -1 : 1;
  if (numberA !== numberB) return numberA - numberB;
  return tailA < tailB ? -1 : tailA > tailB ? 1 : 0;
}

function pathKey(file: string): [string, number, string] {
  const frame = FRAME_PATH.exec(file);
  return frame ? [frame[1], Number(frame[2]), frame[3] ?? ''] : [file, 0, ''];
}

/** `path.posix.join(dir, name)` for one name in a folder, without normalising the same folder for every asset. */
function inFolder(dir: string, name: string): string {
  if (!name || name === '.' || name === '..' || name.includes('/') || !isNormalFolder(dir)) return path.posix.join(dir, name);
  return dir === '.' ? name : `${dir}/${name}`;
}

const normalFolders = new Map<string, boolean>();

/** A folder that joins by a slash: normal, without a trailing slash (and not the root). */
function isNormalFolder(dir: string): boolean {
  let normal = normalFolders.get(dir);
  if (normal === undefined) {
    normal = !dir.endsWith('/') && path.posix.normalize(dir) === dir;
    if (normalFolders.size < 1000) normalFolders.set(dir, normal);
  }
  return normal;
}
