// Takes of an image asset (issue 27, docs/build.md "Takes: variants, pick, more"): `variants: N`
// asks for N takes, each its own paid call with its own key (hash.ts idempotencyKeyFor), kept under
// .assetgen/candidates/<id>/<k>.<ext>; the output is made from the picked one (take 1 until
// `assetgen pick`). Here: the paths, and what planning decides about takes. Pure: no file is read.
import path from 'node:path';
import type { FileHash, FileHashes, LockedFile, LockedTake, LockEntry, ManifestAsset } from './records.js';

/** Where takes are kept, under the project root: one folder per asset id. */
export const CANDIDATES_DIR = '.assetgen/candidates';

export const candidatesFolder = (id: string): string => `${CANDIDATES_DIR}/${id}`;

/** Take k's file, with the extension of what the service sent (`.png`). */
export const takePath = (id: string, k: number, extension: string): string => `${candidatesFolder(id)}/${k}${extension}`;

/** Whether a project path is one of the asset's take files (kept in place, never copied or removed as an original is). */
export const isTakeFile = (id: string, file: string): boolean => path.posix.dirname(file) === candidatesFolder(id);

/** How many takes the manifest asks for (1: a plain asset). */
export const wantedTakes = (asset: Pick<ManifestAsset, 'variants'>): number => asset.variants ?? 1;

/** The take the output comes from: the one picked, else take 1. */
export const pickedTake = (entry: Pick<LockEntry, 'picked'>): number => entry.picked ?? 1;

/**
 * What a build says of an asset whose takes nobody has picked: it uses take 1, and how to choose,
 * in the reader's words (ctx.frontEnd.pick: the command, or the MCP tool call); default the command.
 */
export const unpickedNote = (id: string, pick: (id: string) => string = (asset) => `assetgen pick ${asset} <k>`): string =>
  `take 1 used until you pick (${pick(id)})`;

/** The entry's take `k`, if recorded. */
export const takeOf = (entry: Pick<LockEntry, 'candidates'> | undefined, k: number): LockedTake | undefined =>
  entry?.candidates?.find((take) => take.k === k);

/** A take as the lock's file record (what post-processing runs on, as it runs on a kept original). */
export const takeAsFile = (take: LockedTake): LockedFile => ({ path: take.file, sha256: take.sha256, size: take.size });

/** Take numbers from `from` to `to`, inclusive. */
export const takeRange = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/** "take 2", "takes 2 and 3", "takes 2 to 5": how reasons name take numbers. */
export function takeList(ks: readonly number[]): string {
  if (ks.length === 1) return `take ${ks[0]}`;
  const consecutive = ks.every((k, i) => i === 0 || k === ks[i - 1] + 1);
  if (consecutive && ks.length > 2) return `takes ${ks[0]} to ${ks.at(-1)}`;
  return `takes ${ks.slice(0, -1).join(', ')} and ${ks.at(-1)}`;
}

/** What planning decides for the takes of an asset whose spec is unchanged (and nothing in flight). */
export interface TakesDecision {
  /** The takes to make (a paid call each); empty: none. */
  make: number[];
  reasons: string[];
}

/**
 * The takes an up-to-date image asset still lacks: `variants: N` makes the takes 1..N never made
 * (raising N pays for the new ones only; a take deleted by --prune-takes counts as made, so it is
 * never paid for again), and `more` (build --more K) makes K past the highest. The pick stays as it
 * is. A built asset without takes is take 1 (made into a take file by the build, no paid call).
 * `moreOption` is `more` as the reader gave it (`--more K`, or an MCP tool's `` `more: K` ``), for the reason.
 */
export function missingTakes(
  asset: ManifestAsset,
  entry: LockEntry,
  more: number | undefined,
  moreOption = `--more ${more}`,
): TakesDecision {
  // Pruned takes were made (and paid for): never made again by `variants`.
  const made = [...(entry.candidates?.map((take) => take.k) ?? [1]), ...(entry.prunedTakes?.map((take) => take.k) ?? [])];
  const highest = Math.max(...made);
  const wanted = wantedTakes(asset);
  const adopting = !entry.candidates;
  if (more) {
    const make = takeRange(Math.max(highest, wanted) + 1, Math.max(highest, wanted) + more);
    return {
      make,
      reasons: [
        `${moreOption}: ${takeList(make)} to make, a paid call each (${plural(entry.candidates?.length ?? 1)} kept)`,
        ...adopt(adopting),
      ],
    };
  }
  if (made.length >= wanted) return { make: [], reasons: [] };
  const make = takeRange(1, wanted).filter((k) => !made.includes(k));
  return {
    make,
    reasons: [`${made.length} of ${wanted} takes made: ${takeList(make)} to make, a paid call each`, ...adopt(adopting)],
  };
}

const plural = (n: number): string => `${n} take${n === 1 ? '' : 's'}`;
const adopt = (adopting: boolean): string[] => (adopting ? ['take 1 is the asset as built (kept as a take file, no paid call)'] : []);

/** For a new generation: takes 1 to N (N + more with --more); none for a plain asset. */
export function freshTakes(asset: ManifestAsset, more: number | undefined): number[] {
  const count = wantedTakes(asset) + (more ?? 0);
  return count > 1 ? takeRange(1, count) : [];
}

/** The reason a new generation gives when the entry has takes of the last one: they are removed. */
export function droppedTakesReason(id: string, entry: LockEntry | undefined): string[] {
  const count = entry?.candidates?.length ?? 0;
  return count ? [`the last generation's ${plural(count)} (${candidatesFolder(id)}/) removed`] : [];
}

/** The state of a take's file on disk, as planning checks files. */
export function takeState(take: LockedTake, hashes: FileHashes): 'ok' | 'edited' | 'missing' {
  const found: FileHash | null | undefined = hashes.get(take.file);
  return !found ? 'missing' : found.sha256 === take.sha256 && found.size === take.size ? 'ok' : 'edited';
}

/**
 * The entry as post-processing planning sees it: for an asset with takes, the picked take plays the
 * role of the kept original (its post steps run on it), so a changed step re-processes it, free.
 */
export function withPickedAsOriginal(entry: LockEntry): LockEntry {
  const take = takeOf(entry, pickedTake(entry));
  return take ? { ...entry, original: takeAsFile(take) } : entry;
}
