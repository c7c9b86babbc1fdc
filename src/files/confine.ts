// The one confinement rule for every path assetgen writes or deletes (a build's outputs, prune,
// `-o` of the single commands, MCP tool outputs, the lock, its journal and its claim, the
// installer's deletes): the path is resolved through real paths (symlinks followed, as the system
// would follow them) and must stay inside its root. The root's own path is trusted (the project,
// or a folder the user named); a link below it is followed only while its target stays inside. The
// same function is called before paying and again by the save itself, which then writes to the
// real directory it returned. No file of src/ writes, deletes or opens a file but through this
// module (./atomic.ts and ./temp-files.ts are its parts): test/unit/source-rules.test.ts checks.
//
// Every file assetgen opens for itself is a regular file or refused: opened with O_NONBLOCK (a FIFO
// never blocks the open) and checked with fstat before a byte is read or written.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AssetgenError } from '../client/errors.js';
import { writeFileAtomic, writeFileAtomicSync, type AtomicWriteOptions, type FileContent } from './atomic.js';
import { renameRetrying } from './rename.js';
import { removeStaleTemps, tempFor } from './temp-files.js';

export { tempFor } from './temp-files.js';

/** A path the rule refuses. Exit 2 when caught before anything was done (see docs/cli.md). */
export class PathRefusedError extends AssetgenError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'path_refused', hint });
  }
}

// eslint-disable-next-line no-control-regex -- exactly the control characters
const CONTROL = /[\u0000-\u001f\u007f]/;
export const hasControlCharacters = (value: string): boolean => CONTROL.test(value);

/** A path with a NUL or another control character: never a file name assetgen writes. */
export function refuseControlCharacters(value: string, name: string): void {
  if (CONTROL.test(value))
    throw new PathRefusedError(
      `${name} ${JSON.stringify(value)} contains a control character (NUL, newline, …).`,
      'Give a path of printable characters.',
    );
}

/** What is at a path now, without following a link there. */
export type Entry = 'none' | 'file' | 'folder' | 'link' | 'other';

function entryAt(file: string): Entry {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return 'none';
  return stat.isSymbolicLink() ? 'link' : stat.isFile() ? 'file' : stat.isDirectory() ? 'folder' : 'other';
}

const inside = (root: string, real: string): boolean => {
  const relative = path.relative(root, real);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/**
 * A folder's real path: the deepest part that exists (a dangling link counts as existing, and is
 * refused), resolved through links, with the parts still to create appended.
 */
function realFolder(folder: string, shown: string): string {
  const rest: string[] = [];
  let existing = folder;
  while (entryAt(existing) === 'none') {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = fs.realpathSync.native(existing);
  } catch {
    throw new PathRefusedError(
      `${shown}: ${existing} is a symbolic link to a place that does not exist (${linkTarget(existing)}).`,
      'Remove the link or make its target; assetgen creates no folders through a dangling link.',
    );
  }
  if (!fs.statSync(real).isDirectory())
    throw new PathRefusedError(`${shown}: ${existing} is a file, not a folder.`, 'Choose another output path.');
  return path.join(real, ...rest);
}

function linkTarget(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return 'unreadable';
  }
}

/** Real roots found so far: a build checks thousands of paths against the same project. */
const realRoots = new Map<string, string>();

/**
 * The real root: its own links are followed (it is the project, or a folder the user named). The
 * root is trusted, so its real path is found once per process; only paths below it are checked each time.
 */
export function realRoot(root: string): string {
  const base = path.resolve(root);
  let real = realRoots.get(base);
  if (real === undefined) {
    real = realFolder(base, root);
    // A root that does not exist yet (made by the first save) is looked up again next time.
    if (fs.existsSync(real)) realRoots.set(base, real);
  }
  return real;
}

/** The first symbolic link on the way from `root` down to `target` (both as written), for messages. */
function firstLink(root: string, target: string): string | undefined {
  let current = root;
  for (const part of path.relative(root, target).split(path.sep)) {
    current = path.join(current, part);
    const entry = entryAt(current);
    if (entry === 'link') return current;
    if (entry === 'none') return undefined;
  }
  return undefined;
}

export interface Place {
  /** The path as written under the root (what is shown and recorded). */
  path: string;
  /** The real path of the file: its real folder and its name. Writes and deletes go here. */
  file: string;
  /** The real folder the file goes in (it may not exist yet). */
  dir: string;
  /** What is at `file` now (a link is never followed). */
  entry: Entry;
}

/**
 * Where `target` (absolute, or relative to `root`) really is, refused unless inside `root` through
 * real paths. `shown` names it in errors (default: the path as given).
 */
export function placeIn(root: string, target: string, shown: string = target): Place {
  refuseControlCharacters(target, 'The path');
  const base = path.resolve(root);
  const written = path.resolve(base, target);
  if (!inside(base, written)) throw new PathRefusedError(`${shown} is outside ${root}.`, 'Give a path inside it.');
  const realBase = realRoot(base);
  if (written === base) throw new PathRefusedError(`${shown} is the folder ${root} itself, not a file in it.`);
  const dir = realFolder(path.dirname(written), shown);
  if (!inside(realBase, dir)) throw leadsOutside(root, written, shown);
  const file = path.join(dir, path.basename(written));
  return { path: written, file, dir, entry: entryAt(file) };
}

/** A folder inside `root` by the same rule; returns its real path (it may not exist yet). */
export function folderIn(root: string, folder: string, shown: string = folder): string {
  refuseControlCharacters(folder, 'The path');
  const base = path.resolve(root);
  const written = path.resolve(base, folder);
  if (!inside(base, written)) throw new PathRefusedError(`${shown} is outside ${root}.`, 'Give a path inside it.');
  const real = realFolder(written, shown);
  if (!inside(realRoot(base), real)) throw leadsOutside(root, written, shown);
  return real;
}

function leadsOutside(root: string, written: string, shown: string): PathRefusedError {
  const base = path.resolve(root);
  const link = firstLink(base, written);
  return new PathRefusedError(
    `${shown} leads outside ${root}${link ? ` through the symbolic link ${path.relative(base, link) || link} (→ ${linkTarget(link)})` : ''}.`,
    'assetgen writes and deletes only inside it: replace the link with a folder, or choose another path.',
  );
}

/**
 * Refuses a real folder (from placeIn or folderIn) that this process could not create a file in:
 * the deepest part of it that exists must let it write and enter. Checked before paying, so an
 * unwritable `-o` costs nothing (on Windows, where folders carry no such bit, it always passes).
 */
export function checkWritableFolder(dir: string, shown: string): void {
  let existing = dir;
  while (entryAt(existing) === 'none') {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  try {
    fs.accessSync(existing, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw new PathRefusedError(
      `${shown}: assetgen may not write in ${existing} (permission denied).`,
      'Choose a folder you can write to, or change its permissions.',
    );
  }
}

/**
 * Creates a place's real folder and checks it again once it exists: a link put in its way since
 * the check would show now. Returns the real folder.
 */
export function makeFolder(root: string, place: Place, shown: string): string {
  // Most saves go to a folder that is there already (and was just checked): one stat, no mkdir.
  if (fs.lstatSync(place.dir, { throwIfNoEntry: false })?.isDirectory()) {
    sweepOnce(place.dir);
    return place.dir;
  }
  fs.mkdirSync(place.dir, { recursive: true });
  const again = placeIn(root, place.path, shown);
  if (again.dir !== place.dir) throw new PathRefusedError(`${shown} changed while it was being written (a link was put in its way).`);
  return again.dir;
}

/**
 * Which file `target` inside `root` is (device and inode, read by the rule, the last link not
 * followed), or undefined when there is none or the rule refuses it: two names of one file — a
 * folder linked to another, `assets/` and `Assets/` on a disk that ignores case — have one identity.
 * Before deleting a former output, so that a file just written under another name never goes.
 */
export function fileIdentity(root: string, target: string): string | undefined {
  try {
    const stat = fs.lstatSync(placeIn(root, target).file, { bigint: true, throwIfNoEntry: false });
    return stat && `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * Deletes a file inside `root` by the rule, never following a link: the link itself goes, not what
 * it points to; a folder on the way that leads outside is refused. Gone already is fine.
 */
export function removeInside(root: string, target: string, shown: string = target): void {
  const place = placeIn(root, target, shown);
  if (place.entry === 'none') return;
  if (place.entry === 'folder') throw new PathRefusedError(`${shown} is a folder; assetgen deletes only files it wrote.`);
  fs.rmSync(place.file, { force: true });
}

/**
 * Where a whole file may be written (and replaced) under `root`: nothing there yet, or a regular
 * file, never a link or anything else. Checked before paying, and again by writeFileInside.
 */
export function placeToWrite(root: string, file: string, shown: string = file): Place {
  const place = placeIn(root, file, shown);
  if (place.entry !== 'none' && place.entry !== 'file')
    throw new PathRefusedError(
      place.entry === 'link'
        ? `${shown} is a symbolic link; assetgen never writes through a link, nor replaces one.`
        : `${shown} is ${place.entry === 'other' ? otherKind(place.file) : 'not a regular file'}; assetgen only replaces regular files.`,
    );
  return place;
}

/** A whole file written atomically under `root` by the confinement rule: its folder made, never through a link. */
export async function writeFileInside(
  root: string,
  file: string,
  bytes: FileContent,
  shown: string = file,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const place = placeToWrite(root, file, shown);
  const dir = makeFolder(root, place, shown);
  await writeFileAtomic(path.join(dir, path.basename(place.file)), bytes, options);
}

/** The same, synchronously (a lock writer folding a dead build's journal as it opens). */
export function writeFileInsideSync(
  root: string,
  file: string,
  bytes: Uint8Array | string,
  shown: string = file,
  options: AtomicWriteOptions = {},
): void {
  const place = placeToWrite(root, file, shown);
  const dir = makeFolder(root, place, shown);
  writeFileAtomicSync(path.join(dir, path.basename(place.file)), bytes, options);
}

/** Platforms without a flag (Windows has no O_NONBLOCK or O_NOFOLLOW) open without it. */
const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK = 0, O_NOFOLLOW = 0, O_NOCTTY = 0 } = fs.constants;
const READ_FLAGS = O_RDONLY | O_NONBLOCK | O_NOCTTY;

/** What an entry that is neither file, folder nor link is, for a message (a FIFO, a device, a socket). */
function otherKind(file: string): string {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  return stat ? `${kindOf(stat)}, not a regular file` : 'not a regular file';
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** A file assetgen would open for itself is something else (a folder, a FIFO, a device, a socket). */
export class NotRegularFileError extends PathRefusedError {
  /** What is there instead: `a folder`, `a named pipe (FIFO)`, `a socket`, `a device`. */
  readonly kind: string;

  constructor(shown: string, kind: string) {
    super(
      `${shown} is ${kind === NOT_REGULAR ? NOT_REGULAR : `${kind}, ${NOT_REGULAR}`}; assetgen opens only regular files for itself.`,
      'Remove it or move it away; assetgen makes the file again when it needs one.',
    );
    this.kind = kind;
  }
}

const NOT_REGULAR = 'not a regular file';

/** A file assetgen would open for itself is something else: reading it could block forever, or read a device. */
export function notRegularFile(shown: string, stat: fs.Stats): PathRefusedError {
  return new NotRegularFileError(shown, kindOf(stat));
}

/**
 * The error for one of assetgen's own files (`what`: "the job journal") that could not be read or
 * written: one sentence naming it and why, and a hint that fits the cause. Something that is not a
 * regular file there (a folder, a FIFO) is moved or removed (`moved`: what happens then); any other
 * failure — permissions, a full disk — has the hint `otherwise`. The cause's own words end the
 * sentence with one full stop, not two.
 */
export function ownFileFailure(
  verb: 'read' | 'write',
  what: string,
  file: string,
  error: unknown,
  hints: { moved: string; otherwise: string },
): { message: string; hint: string } {
  if (error instanceof NotRegularFileError) {
    const thing = error.kind === 'a folder' ? 'that folder' : 'it';
    return {
      message: `Cannot ${verb} ${what} ${file}: it is ${error.kind === NOT_REGULAR ? NOT_REGULAR : `${error.kind}, ${NOT_REGULAR}`}.`,
      hint: `Move ${thing} away or remove it; ${hints.moved}`,
    };
  }
  const reason = (error instanceof Error ? error.message : String(error)).trim().replace(/[.\s]+$/, '');
  return { message: `Cannot ${verb} ${what} ${file}: ${reason}.`, hint: hints.otherwise };
}

/**
 * Opens a file to read, refused unless it is a regular file: O_NONBLOCK so a FIFO never blocks
 * the open, then fstat on what was opened (no gap for a swap between a check and the open). Links
 * are followed (reading writes nothing). Returns the descriptor and its stat; the caller closes it.
 */
export function openRegularSync(file: string, shown: string = file): { fd: number; stat: fs.Stats } {
  const fd = fs.openSync(file, READ_FLAGS);
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  if (stat.isFile()) return { fd, stat };
  fs.closeSync(fd);
  throw notRegularFile(shown, stat);
}

/** A whole regular file's bytes (or text): openRegularSync, then read. ENOENT and the like are thrown as they come. */
export function readRegularFileSync(file: string, shown?: string): Buffer;
export function readRegularFileSync(file: string, shown: string | undefined, encoding: BufferEncoding): string;
export function readRegularFileSync(file: string, shown: string = file, encoding?: BufferEncoding): Buffer | string {
  const { fd } = openRegularSync(file, shown);
  try {
    return encoding ? fs.readFileSync(fd, encoding) : fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The same, without blocking the event loop (a build reads many files at once). */
export async function readRegularFile(file: string, shown: string = file): Promise<Buffer> {
  const handle = await fs.promises.open(file, READ_FLAGS);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegularFile(shown, stat);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** A regular file streamed (a large file hashed): the descriptor openRegularSync checked, closed by the stream. */
export function streamRegularFile(file: string, shown: string = file): fs.ReadStream {
  const { fd } = openRegularSync(file, shown);
  return fs.createReadStream('', { fd });
}

/**
 * Opens a file inside `root` to append to (the lock's journal), by the rule: never through a link
 * (checked, then O_NOFOLLOW on the open itself), O_NONBLOCK so a FIFO never blocks the open, and
 * refused unless what was opened is a regular file. Its folder is made. The caller closes it.
 */
export async function openAppendInside(root: string, file: string, shown: string = file): Promise<fs.promises.FileHandle> {
  const place = placeToWrite(root, file, shown);
  const real = path.join(makeFolder(root, place, shown), path.basename(place.file));
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(real, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644);
  } catch (error) {
    // Swapped since the check: a link (ELOOP), or a FIFO with no reader (ENXIO).
    const stat = fs.lstatSync(real, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) throw new PathRefusedError(`${shown} is a symbolic link; assetgen never writes through a link.`);
    if (stat && !stat.isFile()) throw notRegularFile(shown, stat);
    throw error;
  }
  const stat = await handle.stat();
  if (stat.isFile()) return handle;
  await handle.close();
  throw notRegularFile(shown, stat);
}

/**
 * Appends to a file of the user's own state (the job journal, in a folder the user's environment
 * names, not a project's: links there are the user's), made when missing: O_NONBLOCK so a FIFO
 * never blocks the open, and refused unless what was opened is a regular file.
 */
export function appendRegularFileSync(file: string, text: string, mode: number): void {
  let fd: number;
  try {
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY, mode);
  } catch (error) {
    // A FIFO with no reader (ENXIO), or another kind of file: named as what it is.
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && !stat.isFile()) throw notRegularFile(file, stat);
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw notRegularFile(file, stat);
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes a new file inside `root`, whole before it appears: written to a temp file, then hard-linked
 * to its name, which fails when anything (a file, a link, dangling or not) is there. False when
 * something is there already (a lock's claim held by another process). A link or anything but a
 * regular file there is refused.
 */
export function createFileInsideSync(root: string, file: string, bytes: Uint8Array | string, shown: string = file): boolean {
  const place = placeToWrite(root, file, shown);
  if (place.entry !== 'none') return false;
  const target = path.join(makeFolder(root, place, shown), path.basename(place.file));
  const temp = tempFor(target);
  fs.writeFileSync(temp, bytes, { flag: 'wx' });
  try {
    return publishSync(temp, target);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * File systems without hard links: the exclusive create, which refuses whatever is there too. Some
 * refuse a link with EPERM or EACCES (FAT and exFAT drives, network shares, Windows' sharing rules).
 */
const NO_HARD_LINKS = ['EPERM', 'EACCES', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'];

function publishSync(temp: string, target: string): boolean {
  try {
    fs.linkSync(temp, target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.includes(code)) throw error;
  }
  try {
    fs.writeFileSync(target, fs.readFileSync(temp), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * A finished temp file (tempFor, in a real folder a Place gave) to its place's real path. With
 * `replace`, a rename (which replaces a link itself, never what it points to); without, a hard
 * link, which fails when anything, even a dangling link, is there (no check-then-act gap): then
 * false, and the temp file stays for the caller to discard.
 */
export async function moveIntoPlace(temp: string, file: string, replace: boolean): Promise<boolean> {
  if (!replace) {
    try {
      await fs.promises.link(temp, file);
      await fs.promises.rm(temp, { force: true });
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') return false;
      // A file system without hard links: the check just made stands.
      if (!NO_HARD_LINKS.includes(code)) throw error;
    }
  }
  await renameRetrying(temp, file);
  return true;
}

/** A file made in full as a temp file beside its place (makeTempInside), not yet moved there (moveIntoPlace). */
export interface MadeTemp {
  /** The project path it is for. */
  path: string;
  temp: string;
  target: string;
  sha256: string;
  size: number;
}

/**
 * Writes `content` (text, or bytes in pieces) to a new temp file beside `file` (placed by the
 * confinement rule, its folder made), hashing it on the way: several files made in full before any
 * is moved into place (a sheet's pages), each then moved with moveIntoPlace or dropped with discardTemp.
 */
export async function makeTempInside(root: string, file: string, content: string | AsyncIterable<Buffer>): Promise<MadeTemp> {
  const place = placeToWrite(root, file);
  const target = path.join(makeFolder(root, place, file), path.basename(place.file));
  const temp = tempFor(target);
  const hash = createHash('sha256');
  let size = 0;
  const handle = await fs.promises.open(temp, 'wx', 0o644);
  try {
    for await (const chunk of typeof content === 'string' ? [Buffer.from(content)] : content) {
      hash.update(chunk);
      size += chunk.length;
      await handle.writeFile(chunk);
    }
  } catch (error) {
    await handle.close();
    await discardTemp(temp);
    throw error;
  }
  await handle.close();
  return { path: file, temp, target, sha256: hash.digest('hex'), size };
}

/** A temp file of assetgen's (tempFor) that is not needed any more; gone already is fine. */
export async function discardTemp(temp: string): Promise<void> {
  await fs.promises.rm(temp, { force: true });
}

/** Real folders swept of stale temp files in this process: once each is enough. */
const swept = new Set<string>();

function sweepOnce(realFolder: string): void {
  if (swept.has(realFolder)) return;
  swept.add(realFolder);
  removeStaleTemps(realFolder);
}

/**
 * Removes assetgen's own stale temp files (a save cut by kill -9; the rule is in ./temp-files.ts)
 * from a folder inside `root`, by the rule: a folder that leads outside is refused, one that does
 * not exist is nothing to do. Every save into a folder does this first (makeFolder); a build does
 * it for every folder it may write, saved into or not.
 */
export function sweepFolder(root: string, folder: string): void {
  const real = folderIn(root, folder);
  if (fs.lstatSync(real, { throwIfNoEntry: false })?.isDirectory()) sweepOnce(real);
}

/**
 * A whole file inside `root` read by the rule, never through a link (the file itself, or a folder
 * on the way leading outside, is refused), a regular file only, at most `maxBytes`: assetgen's own
 * state kept in a project (the plan cache), which a link could otherwise point elsewhere.
 * Undefined when nothing is there or the file is larger; refusals are thrown as PathRefusedError.
 */
export function readInsideSync(root: string, file: string, maxBytes: number): Buffer | undefined {
  const place = placeIn(root, file);
  if (place.entry === 'none') return undefined;
  if (place.entry === 'link') throw new PathRefusedError(`${file} is a symbolic link; assetgen never reads its own files through a link.`);
  const fd = fs.openSync(place.file, READ_FLAGS | O_NOFOLLOW);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw notRegularFile(file, stat);
    if (stat.size > maxBytes) return undefined;
    const bytes = Buffer.allocUnsafe(stat.size);
    let size = 0;
    for (let read = -1; read !== 0 && size < bytes.length; size += read) read = fs.readSync(fd, bytes, size, bytes.length - size, null);
    return bytes.subarray(0, size);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The file system's clock now, in nanoseconds: the mtime of a file made (then removed) in `folder`
 * inside `root` by the rule. A file changed after this moment has an mtime and ctime at or past it,
 * on the same clock as theirs (Date.now() may differ from the file system's coarser clock).
 */
export function fileSystemTimeSync(root: string, folder: string): bigint {
  const place = placeToWrite(root, path.join(folder, 'clock'));
  const temp = tempFor(path.join(makeFolder(root, place, folder), path.basename(place.file)));
  fs.writeFileSync(temp, '', { flag: 'wx' });
  try {
    return fs.statSync(temp, { bigint: true }).mtimeNs;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
