// Sprite sheets in a build (docs/build.md "Sheets"): an asset that packs other assets' outputs into
// one atlas PNG plus its TexturePacker JSON-hash data file beside it. Here, pure: the data file's
// path, the inputs a sheet names, its frames' names, the options' hash the lock records, and the
// plan's decision. Packing costs nothing; sharp is loaded by the build that packs, never by planning.
import path from 'node:path';
import type { LeftAloneWords } from '../api/left-alone.js';
import { isMediaExtension } from '../files/media.js';
import { sha256, stableStringify } from './hash.js';
import { listIds } from './id-list.js';
import type { FileCheck, FileHash, Lock, LockedFile, LockEntry, ManifestAsset, PlanItem, SheetSpec } from './records.js';
import { entryOf } from './lock-history.js';
import { globToRegExp } from './shard.js';
import { compareProjectPaths } from './paths.js';
import { slices } from '../imaging/post-steps.js';

/** The kinds of asset a sheet may take frames from. */
export const SHEET_INPUT_KINDS = ['image', 'workflow'] as const;

const stemOf = (png: string): string => png.slice(0, png.length - path.posix.extname(png).length);

/** The data file beside the atlas: `<name>.json`. */
export const sheetDataPath = (png: string): string => `${stemOf(png)}.json`;

/**
 * The files a sheet of `pages` pages writes (docs/imaging.md "Pages"). One page: its atlas and its
 * data, `<name>.png` and `<name>.json`. Several: each page's atlas and JSON-hash, `<name>-<k>.png`
 * and `<name>-<k>.json` for k from 0, then `<name>.json`, Phaser's multiatlas of them all.
 */
export function sheetFiles(png: string, pages = 1): string[] {
  if (pages === 1) return [png, sheetDataPath(png)];
  const stem = stemOf(png);
  return [...Array.from({ length: pages }, (_, k) => [`${stem}-${k}.png`, `${stem}-${k}.json`]).flat(), `${stem}.json`];
}

/** Whether `file` is one a sheet at `png` writes, with any number of pages. */
export function isSheetFile(png: string, file: string): boolean {
  const stem = stemOf(png);
  return (
    file === png || file === sheetDataPath(png) || (file.startsWith(`${stem}-`) && /^[0-9]+\.(png|json)$/.test(file.slice(stem.length + 1)))
  );
}

/** The ids a sheet's `from` names, in the manifest's order: exact ids, and globs over image and workflow assets. */
export function sheetInputs(from: readonly string[], assets: readonly Pick<ManifestAsset, 'id' | 'kind'>[]): string[] {
  const picked = new Set<string>();
  for (const selector of from) {
    const pattern = globToRegExp(selector);
    for (const asset of assets) {
      if (asset.id === selector || (pattern.test(asset.id) && (SHEET_INPUT_KINDS as readonly string[]).includes(asset.kind)))
        picked.add(asset.id);
    }
  }
  return assets.map((asset) => asset.id).filter((id) => picked.has(id));
}

/** What the lock records as a sheet's spec: the hash of its inputs' ids and its options. */
export const sheetSpecHash = (sheet: SheetSpec, inputs: readonly string[]): string =>
  sha256(stableStringify({ kind: 'sheet', inputs, options: { ...sheet, from: undefined } }));

/** One frame: its name in the data file and the project path of its image. */
export interface SheetFrame {
  name: string;
  path: string;
}

/**
 * The frames of the inputs' image files: an asset with one file gives a frame named by its id; one
 * with several (a workflow's) gives `<id>-1`, `<id>-2`, … in the order of their paths (a slice's
 * frames by number: frame n is `<id>-n`, even when there is one; `frameInputs` names them).
 */
export function sheetFrames(
  inputs: readonly string[],
  filesOf: (id: string) => readonly string[],
  frameInputs: readonly string[] = [],
): SheetFrame[] {
  return inputs.flatMap((id) => {
    const images = filesOf(id)
      .filter((file) => isMediaExtension(path.posix.extname(file)) && !/\.(mp4|webm|mov)$/i.test(file))
      .sort(compareProjectPaths);
    const numbered = images.length > 1 || frameInputs.includes(id);
    return images.map((file, index) => ({ name: numbered ? `${id}-${index + 1}` : id, path: file }));
  });
}

/** The ids of the inputs whose files are a `slice`'s frames. */
export const slicedInputs = (inputs: readonly string[], assets: readonly Pick<ManifestAsset, 'id' | 'post'>[]): string[] =>
  inputs.filter((id) => slices(assets.find((asset) => asset.id === id)?.post));

/**
 * Names in natural order: runs of digits compare as numbers (`walk-2` before `walk-10`), the rest by
 * code unit (the same in every locale); equal so far, by code unit.
 */
export function compareFrameNames(a: string, b: string): number {
  const runsA = a.match(/\d+|\D+/g) ?? [];
  const runsB = b.match(/\d+|\D+/g) ?? [];
  for (let index = 0; index < Math.min(runsA.length, runsB.length); index++) {
    const [x, y] = [runsA[index], runsB[index]];
    if (x === y) continue;
    const numbers = /^\d/.test(x) && /^\d/.test(y);
    if (numbers && BigInt(x) !== BigInt(y)) return BigInt(x) < BigInt(y) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return runsA.length - runsB.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * A sheet's `animations` as frame names: each selector an exact frame name, or a glob whose frames
 * come in natural order (by frame number); a list plays its selectors in turn. `unknown`: the
 * selectors that name no frame.
 */
export function resolveAnimations(
  animations: Readonly<Record<string, string | readonly string[]>>,
  frameNames: readonly string[],
): { animations: Record<string, string[]>; unknown: string[] } {
  const names = new Set(frameNames);
  const resolved: Record<string, string[]> = {};
  const unknown: string[] = [];
  for (const [animation, value] of Object.entries(animations)) {
    const frames = (typeof value === 'string' ? [value] : value).flatMap((selector) => {
      if (names.has(selector)) return [selector];
      const pattern = /[*?]/.test(selector) ? globToRegExp(selector) : undefined;
      const matched = pattern ? frameNames.filter((name) => pattern.test(name)).sort(compareFrameNames) : [];
      if (!matched.length) unknown.push(`${animation}: ${selector}`);
      return matched;
    });
    Object.defineProperty(resolved, animation, { value: frames, enumerable: true, writable: true, configurable: true });
  }
  return { animations: resolved, unknown };
}

export interface SheetDecision {
  status: 'up-to-date' | 'new' | 'changed' | 'missing' | 'edited';
  /** reprocess: pack again (free); keep: left alone, reported. */
  action: 'none' | 'reprocess' | 'keep';
  reasons: string[];
}

type State = 'ok' | 'edited' | 'missing';

/**
 * The inputs that leave a sheet unpacked: never built (no file in the lock) and not made by this
 * build. Such a sheet is `skipped` by the build (its earlier atlas untouched), not kept: nothing of
 * it was edited by hand.
 */
export const unbuiltInputs = (
  inputs: readonly string[],
  building: ReadonlySet<string>,
  lockedFiles: (id: string) => readonly LockedFile[] | undefined,
): string[] => inputs.filter((id) => !building.has(id) && !lockedFiles(id)?.length);

/**
 * Whether a sheet is packed again: when an input is built in this build, when an input file's hash
 * differs from the one the sheet was packed from, when its options or `out` changed, or its files
 * are missing. A hand-edited atlas or data file is kept (--force re-packs it), as is a sheet whose
 * files someone made: said in the reader's words (`leftAlone`, PlanOptions.leftAlone).
 */
export function planSheet(
  asset: ManifestAsset & { sheet: SheetSpec },
  context: {
    entry: LockEntry | undefined;
    files: readonly { path: string; state: State }[];
    inputs: readonly string[];
    lockedFiles: (id: string) => readonly LockedFile[] | undefined;
    building: ReadonlySet<string>;
    hashes: ReadonlyMap<string, FileHash | null>;
    force?: boolean;
    leftAlone: LeftAloneWords;
  },
): SheetDecision {
  const { entry, files, inputs, building, hashes } = context;
  const out = asset.out.type === 'file' ? asset.out.path : '';
  // The files of one page, known before packing (a page's files are checked when it is packed).
  const wanted = sheetFiles(out);
  const foreign = wanted.filter((file) => hashes.get(file) && !entry?.files.some((recorded) => recorded.path === file));
  const pack = (status: SheetDecision['status'], reasons: string[]): SheetDecision =>
    foreign.length && !context.force
      ? {
          status,
          action: 'keep',
          reasons: [...reasons, `${listIds(foreign)} exists and assetgen did not make it: ${context.leftAlone(asset.id, 'replace')}`],
        }
      : { status, action: 'reprocess', reasons: [...reasons, 'packed after its inputs, no paid call'] };
  const unbuilt = unbuiltInputs(inputs, building, context.lockedFiles);
  if (unbuilt.length)
    return { status: entry?.spec ? 'changed' : 'new', action: 'keep', reasons: [`${listIds(unbuilt)} not built yet: not packed`] };
  if (!entry?.spec) return pack('new', ['not built yet']);
  const edited = files.filter((file) => file.state === 'edited');
  if (edited.length && !context.force)
    return {
      status: 'edited',
      action: 'keep',
      reasons: [`${listIds(edited.map((file) => file.path))} edited since assetgen wrote it`, context.leftAlone(asset.id, 'repack')],
    };
  const why: string[] = [];
  if (context.force) why.push('--force: re-packed');
  if (entry.spec !== sheetSpecHash(asset.sheet, inputs)) why.push('sheet changed (inputs or options)');
  const rebuilt = inputs.filter((id) => building.has(id));
  if (rebuilt.length) why.push(`${listIds(rebuilt)} built in this build`);
  else if (!sameInputs(entry.inputs ?? [], inputs, context.lockedFiles, hashes)) why.push('an input file changed');
  if (files.some((file) => !isSheetFile(out, file.path))) why.push('out changed');
  const missing = files.filter((file) => file.state === 'missing');
  if (missing.length) why.push(`${listIds(missing.map((file) => file.path))} missing`);
  if (!why.length) return { status: 'up-to-date', action: 'none', reasons: [] };
  return pack(why.length === 1 && missing.length ? 'missing' : 'changed', why);
}

/**
 * A sheet's item in the plan: `reprocess` (pack, free), `keep` or `none`; undefined when the build's
 * selection leaves it out. A selection takes along every sheet its assets feed (`build enemy-bat`
 * re-packs the sheet of enemies: packing is free, and a sheet left behind would show the old frame);
 * such a sheet says which selected assets it follows, and --force, meant for the selected assets,
 * does not re-pack it over a hand edit.
 */
export function planSheetItem(
  asset: ManifestAsset,
  assets: readonly ManifestAsset[],
  lock: Lock,
  context: {
    files: () => FileCheck[];
    hashes: ReadonlyMap<string, FileHash | null>;
    building: ReadonlySet<string>;
    force?: boolean;
    /** The ids a selection picked; absent: every asset. */
    selected?: ReadonlySet<string>;
    /** The reader's words for a sheet left alone (PlanOptions.leftAlone). */
    leftAlone: LeftAloneWords;
  },
): PlanItem | undefined {
  const inputs = sheetInputs(asset.sheet!.from, assets);
  const chosen = !context.selected || context.selected.has(asset.id);
  const feeders = chosen ? [] : inputs.filter((id) => context.selected!.has(id));
  if (!chosen && !feeders.length) return undefined;
  const lockedFiles = (id: string): LockedFile[] | undefined => entryOf(lock, id)?.files;
  const files = context.files();
  const decision = planSheet(asset as ManifestAsset & { sheet: SheetSpec }, {
    files,
    hashes: context.hashes,
    building: context.building,
    force: chosen && context.force,
    entry: entryOf(lock, asset.id),
    inputs,
    lockedFiles,
    leftAlone: context.leftAlone,
  });
  const reasons = feeders.length && decision.action !== 'none' ? [`fed by ${listIds(feeders)}`, ...decision.reasons] : decision.reasons;
  const spec = sheetSpecHash(asset.sheet!, inputs);
  const { status, action } = decision;
  const frameInputs = slicedInputs(inputs, assets);
  const replaces = chosen && context.force ? { replaces: true } : {};
  return {
    id: asset.id,
    status,
    action,
    kind: 'sheet',
    spec,
    asset,
    inputs,
    ...(frameInputs.length ? { frameInputs } : {}),
    reasons,
    files,
    estimate: 0,
    prunable: [],
    ...replaces,
  };
}

/** The input files on disk now are the ones the sheet was packed from (same paths, same hashes). */
function sameInputs(
  packed: readonly LockedFile[],
  inputs: readonly string[],
  lockedFiles: (id: string) => readonly LockedFile[] | undefined,
  hashes: ReadonlyMap<string, FileHash | null>,
): boolean {
  const frames = sheetFrames(inputs, (id) => (lockedFiles(id) ?? []).map((file) => file.path));
  if (frames.length !== packed.length) return false;
  const byPath = new Map(packed.map((file) => [file.path, file]));
  return frames.every((frame) => {
    const was = byPath.get(frame.path);
    const now = hashes.get(frame.path);
    return was && now && was.sha256 === now.sha256 && was.size === now.size;
  });
}
