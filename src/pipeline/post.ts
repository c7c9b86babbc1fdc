// Post-processing in a build (issue 21): an image asset's `post:` steps run on the generated
// original, which is kept in the project (.assetgen/originals/<id>/), so a change of the steps alone
// re-processes it with no paid call. Here: the paths, the steps' hash the lock records, and the
// plan's decision. Pure: sharp is loaded by the build that applies the steps, never by planning.
import path from 'node:path';
import type { LeftAloneWords } from '../api/left-alone.js';
import { sameFormat } from '../files/media.js';
import { slices, type PostStep } from '../imaging/post-steps.js';
import { sha256, stableStringify } from './hash.js';
import type { FileHash, LockedFile, LockEntry, ManifestAsset, OutputTarget } from './records.js';
import { inTarget, isFrameStem, stemOf } from './paths.js';

/** Where generated originals are kept, under the project root: one folder per asset id. */
export const ORIGINALS_DIR = '.assetgen/originals';

export const originalsFolder = (id: string): string => `${ORIGINALS_DIR}/${id}`;

/** The kept original of a file named `name` (the downloaded file's own name, or an output's). */
export const originalPath = (id: string, name: string): string => `${originalsFolder(id)}/${path.posix.basename(name)}`;

/** What the lock records of the steps: their hash (the parsed steps, every default filled in). */
export const postHash = (steps: readonly PostStep[]): string => sha256(stableStringify(steps));

/** The extension the steps write: `.webp` after `format: webp`, else `.png`. */
export function postExtension(steps: readonly PostStep[]): string {
  const last = steps.at(-1);
  return last?.kind === 'format' ? `.${last.format}` : '.png';
}

/**
 * Where the output of an asset made from `original` goes: in a folder, `<id>` with the steps'
 * extension, or (no steps) the original's own; a file `out` as given — except that with no steps
 * the output is the original's bytes, so it takes the original's extension when `out`'s names
 * another format (`gem.webp` holding a PNG is `gem.png`), as a build without steps saves it.
 */
export function outputPathFor(asset: Pick<ManifestAsset, 'id' | 'out' | 'post'>, original: string): string {
  const own = path.posix.extname(original);
  if (asset.out.type === 'file') {
    const given = path.posix.extname(asset.out.path);
    if (asset.post || !own || sameFormat(given, own)) return asset.out.path;
    return `${asset.out.path.slice(0, asset.out.path.length - given.length)}${own}`;
  }
  const extension = asset.post ? postExtension(asset.post) : own;
  const name = `${asset.id}${extension}`;
  return asset.out.dir === '.' ? name : `${asset.out.dir}/${name}`;
}

/**
 * Frame n (from 1) of an asset whose steps `slice` its image: `<stem>-<n><ext>` of the output it
 * would have had (`assets/hero-walk.png` → `assets/hero-walk-1.png`; in a folder `<id>-<n>.png`).
 */
export function framePath(output: string, n: number): string {
  const extension = path.posix.extname(output);
  return `${output.slice(0, output.length - extension.length)}-${n}${extension}`;
}

/** The files an asset of `count` outputs writes: its output, or with a `slice` step its frames. */
export const outputPathsFor = (asset: Pick<ManifestAsset, 'id' | 'out' | 'post'>, original: string, count: number): string[] =>
  slices(asset.post)
    ? Array.from({ length: count }, (_, index) => framePath(outputPathFor(asset, original), index + 1))
    : [outputPathFor(asset, original)];

/** A file `out` must have the extension the steps write; the message when it does not. */
export function postOutProblem(out: OutputTarget, steps: readonly PostStep[]): string | undefined {
  if (out.type !== 'file') return undefined;
  const extension = postExtension(steps);
  if (path.posix.extname(out.path).toLowerCase() === extension) return undefined;
  return `post writes ${extension.slice(1).toUpperCase()}: give the file the ${extension} extension (or a folder ending in /)`;
}

/** What planning does about post-processing: re-process from `source` for free, generate, or keep. */
export interface PostDecision {
  status: 'changed' | 'missing' | 'edited';
  action: 'reprocess' | 'generate' | 'keep';
  reasons: string[];
  /** For a re-process: the project path of the file the steps run on (the kept original, or the output made before `post` was added). */
  source?: string;
}

type State = 'ok' | 'edited' | 'missing';

/**
 * Called once an asset's spec is unchanged and no output is edited by hand: undefined when
 * post-processing leaves nothing to do (the caller goes on as for any asset). An edited kept
 * original is left alone, said in the reader's words (`leftAlone`, PlanOptions.leftAlone).
 */
export function planPost(
  asset: ManifestAsset,
  entry: LockEntry,
  files: readonly { path: string; state: State }[],
  hashes: ReadonlyMap<string, FileHash | null>,
  leftAlone: LeftAloneWords,
): PostDecision | undefined {
  const wanted = asset.post ? postHash(asset.post) : undefined;
  // The last build paid for the image and kept it, but its steps failed (lock.ts `postFailed`): the
  // steps, fixed or tried again, run on the kept original (asked for again, with the same key, if gone).
  if (entry.postFailed)
    return fromSource(
      entry,
      'missing',
      ['its post steps failed after it was paid for'],
      stateOf(entry.original!, hashes),
      asset.id,
      leftAlone,
    );
  if (!wanted && !entry.post) return undefined;
  const original = entry.original;
  const source = original?.path ?? files[0]?.path ?? '';
  const target = outputPathFor(asset, source);
  // Frames (a `slice`): as many as the steps made last time, since they are the same steps.
  const paths = outputPathsFor(asset, source, Math.max(1, files.length));
  const ownStem = (file: string): boolean => stemOf(file) === stemOf(target) || isFrameStem(stemOf(file), stemOf(target));
  const moved = !files.every((file) => inTarget(file.path, asset.id, asset.out) && ownStem(file.path));
  const renamed = files.length !== paths.length || files.some((file, index) => file.path !== paths[index]);
  const missing = files.filter((file) => file.state === 'missing').map((file) => file.path);
  const what = [
    ...(wanted !== entry.post ? [!entry.post ? 'post added' : !wanted ? 'post removed' : 'post changed'] : []),
    ...(moved ? ['out changed'] : renamed && !missing.length ? [`now written as ${paths.join(', ')}`] : []),
    ...(missing.length ? [`${missing.join(', ')} missing`] : []),
  ];
  if (!what.length) return undefined;
  const status = wanted !== entry.post || moved || renamed ? 'changed' : 'missing';
  // Before `post` was added, the output is the generated file itself: it becomes the original.
  const sourceState: State = original ? stateOf(original, hashes) : files.length === 1 && files[0].state === 'ok' ? 'ok' : 'missing';
  return fromSource(entry, status, what, sourceState, asset.id, leftAlone, files[0]?.path);
}

/**
 * Re-process from the original (or `output`, the file made before `post`) when intact; keep it when
 * edited, in the reader's words for asset `id` (`leftAlone`); else generate.
 */
function fromSource(
  entry: LockEntry,
  status: PostDecision['status'],
  what: string[],
  state: State,
  id: string,
  leftAlone: LeftAloneWords,
  output?: string,
): PostDecision {
  const { original } = entry;
  const source = original?.path ?? output;
  if (state === 'ok' && source)
    return { status, action: 'reprocess', source, reasons: [...what, `re-processed from ${source}, no paid call`] };
  if (state === 'edited')
    return {
      status: 'edited',
      action: 'keep',
      reasons: [...what, `${source} (the kept original) edited since assetgen wrote it: ${leftAlone(id, 'regenerate')}`],
    };
  const gone = original ? `the kept original ${original.path} is missing` : 'no generated original is left';
  return { status, action: 'generate', reasons: [...what, `${gone}: generated again (a paid call)`] };
}

function stateOf(file: LockedFile, hashes: ReadonlyMap<string, FileHash | null>): State {
  const found = hashes.get(file.path);
  return !found ? 'missing' : found.sha256 === file.sha256 && found.size === file.size ? 'ok' : 'edited';
}
