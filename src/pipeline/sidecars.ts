// `provenance:` in the manifest: after a build, each output's record (./provenance.ts) written as
// `<file>.assetgen.json`, where the manifest says (records.ts SidecarPlace): mirrored under a folder of
// their own, .assetgen/provenance/ by default, which never ships with the game (a sidecar holds the
// prompt, the service host and the idempotency key), or beside each output. Through the one
// confinement rule and atomically; the image itself is never opened for writing (a provider's C2PA
// signature covers its bytes). A sidecar that already says the same is left alone, so a build that
// changes nothing writes nothing; a missing one is written again. A build keeps one sidecar per
// output: assetgen's own in the other place (an earlier build's, before the setting changed) goes;
// and a file that stops being an output of its asset (a frame a new cut no longer makes, an output
// now in another format or moved, a pruned asset's) loses assetgen's sidecar at that very build.
import path from 'node:path';
import {
  fileIdentity,
  PathRefusedError,
  placeIn,
  readRegularFile,
  readRegularFileSync,
  removeInside,
  writeFileInside,
} from '../files/confine.js';
import type { Lock, Plan, SidecarPlace } from './records.js';
import { entryOf } from './lock-history.js';
import type { AssetOutcome, AssetResult } from './outcome.js';
import { provenanceRecords, sidecarText, type ProvenanceRecord } from './provenance.js';
import { otherPlace, sidecarPath } from './sidecar-place.js';

export interface SidecarsWritten {
  /** Where they go: `folder` (under `dir`, mirroring the outputs' paths) or `beside` each output. */
  place: SidecarPlace['sidecars'];
  /** The folder, relative to the project root, for `folder`. */
  dir?: string;
  /** Sidecars written (new or changed) by this build, relative to the project root. */
  written: string[];
  /** Sidecars that already said the same. */
  current: number;
  /**
   * assetgen's sidecars this build removed: of these outputs, from the other place (moved, with
   * `written`), and of files no longer outputs of their asset (a dropped frame, an output in another
   * format or moved, a pruned asset's), from either place.
   */
  removed: string[];
  /** With `removed` (not empty): how many of them were moved, the sidecar of that output now where `place` says. */
  moved?: number;
  /** Sidecars that could not be written (or removed), each with why. */
  failed: { path: string; reason: string }[];
}

/** How many sidecars are checked or written at once. */
const AT_ONCE = 16;

export async function writeSidecars(root: string, records: readonly ProvenanceRecord[], place: SidecarPlace): Promise<SidecarsWritten> {
  const result: SidecarsWritten = {
    place: place.sidecars,
    ...(place.sidecars === 'folder' ? { dir: place.dir } : {}),
    written: [],
    current: 0,
    removed: [],
    failed: [],
  };
  const other = otherPlace(place);
  for (let start = 0; start < records.length; start += AT_ONCE) {
    await Promise.all(
      records.slice(start, start + AT_ONCE).map(async (record) => {
        const sidecar = sidecarPath(record.file, place);
        try {
          if (await writeSidecar(root, sidecar, record.file, sidecarText(record))) result.written.push(sidecar);
          else result.current++;
          // Only once the sidecar is where it goes now: the earlier one is never lost before.
          const earlier = sidecarPath(record.file, other);
          if (removeOurSidecar(root, earlier, record.file)) {
            result.removed.push(earlier);
            result.moved = (result.moved ?? 0) + 1;
          }
        } catch (error) {
          result.failed.push({ path: sidecar, reason: error instanceof Error ? error.message : String(error) });
        }
      }),
    );
  }
  result.written.sort();
  result.removed.sort();
  return result;
}

/** Writes one sidecar unless it says the same already; true when written. */
async function writeSidecar(root: string, sidecar: string, file: string, text: string): Promise<boolean> {
  const place = placeIn(root, sidecar);
  if (place.entry === 'link') throw new PathRefusedError(`${sidecar} is a symbolic link: assetgen never writes through one.`);
  if (place.entry === 'folder' || place.entry === 'other') throw new PathRefusedError(`${sidecar} is in the way: not a file.`);
  if (place.entry === 'file') {
    const there = await readRegularFile(place.file, sidecar).then(
      (bytes) => bytes.toString('utf8'),
      () => undefined,
    );
    if (there === text) return false;
    // Replaced only when it is an earlier sidecar of assetgen's for this very file: never someone's own.
    if (!isOurSidecar(there, file, undefined, root)) throw new PathRefusedError(`${sidecar} is in the way: a file assetgen did not write.`);
  }
  await writeFileInside(root, sidecar, text);
  return true;
}

/**
 * An assetgen sidecar of the output `file` (`generator: "assetgen"`, the same `file`; given, the same
 * `asset`). With `root`, also one naming `file` by another name of the same file (`assets/` renamed
 * `Assets/` on a disk that ignores case, a folder linked to the old one): its sidecar is this one.
 */
function isOurSidecar(text: string | undefined, file: string, asset?: string, root?: string): boolean {
  try {
    const record = JSON.parse(text ?? '') as { generator?: unknown; file?: unknown; asset?: unknown };
    const same = record.file === file || (root !== undefined && typeof record.file === 'string' && sameFile(root, record.file, file));
    return record.generator === 'assetgen' && same && (asset === undefined || record.asset === asset);
  } catch {
    return false;
  }
}

/**
 * Removes the sidecar at `sidecar` when it is assetgen's for the output `file`, by the confinement
 * rule; anything else of that name (a user's file, a link, a folder) stays. True when removed.
 */
function removeOurSidecar(root: string, sidecar: string, file: string, asset?: string): boolean {
  const place = placeIn(root, sidecar);
  if (place.entry !== 'file' || !isOurSidecar(readRegularFileSync(place.file, sidecar, 'utf8'), file, asset)) return false;
  removeInside(root, sidecar);
  return true;
}

/** Two names of one file inside `root` (both there). */
function sameFile(root: string, a: string, b: string): boolean {
  const one = fileIdentity(root, a);
  return one !== undefined && one === fileIdentity(root, b);
}

/** A file the lock recorded as an output of `asset` before this build, and no longer does. */
interface FormerOutput {
  asset: string;
  file: string;
}

/**
 * Removes assetgen's sidecar of each former output, in both places (the place may have changed at
 * this build too), into `result`: `removed`, or `failed` with why (nothing else of that name goes).
 */
function removeFormerSidecars(
  root: string,
  former: readonly FormerOutput[],
  place: SidecarPlace,
  result: SidecarsWritten,
  lock: Lock,
): void {
  // A sidecar the lock's outputs have now under another name (their folder renamed by case, or
  // linked to the old one) is theirs, and stays. Another name of one file keeps its base name but
  // for case: only the current sidecars of that name are looked at (not one per file of the lock).
  const current = new Map<string, string[]>();
  for (const entry of former.length ? Object.values(lock.assets) : [])
    for (const file of entry.files) {
      const sidecar = sidecarPath(file.path, place);
      const name = path.posix.basename(sidecar).toLowerCase();
      current.set(name, [...(current.get(name) ?? []), sidecar]);
    }
  const isCurrent = (sidecar: string): boolean => {
    const others = current.get(path.posix.basename(sidecar).toLowerCase()) ?? [];
    return others.length > 0 && others.some((other) => sameFile(root, sidecar, other));
  };
  for (const { asset, file } of former) {
    for (const where of [place, otherPlace(place)]) {
      const sidecar = sidecarPath(file, where);
      if (isCurrent(sidecar)) continue;
      try {
        if (removeOurSidecar(root, sidecar, file, asset)) result.removed.push(sidecar);
      } catch (error) {
        result.failed.push({ path: sidecar, reason: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}

/**
 * The files an asset's lock entry listed when the build planned and no longer lists now the build
 * has finished it (built, resumed, restored) or pruned it: the outputs it stopped producing. A file
 * edited by hand keeps the sidecar it had (as prune keeps the file), and a file the lock records
 * now, as any asset's output, is not a former one (its sidecar is that output's).
 */
function formerOutputs(plan: Plan, items: readonly Pick<AssetResult, 'id' | 'outcome'>[], lock: Lock): FormerOutput[] {
  const before = new Map(plan.items.map((item) => [item.id, item.files]));
  const recorded = new Set(Object.values(lock.assets).flatMap((entry) => entry.files.map((file) => file.path)));
  return items
    .filter((item) => FINISHED.has(item.outcome))
    .flatMap((item) =>
      (before.get(item.id) ?? [])
        .filter((file) => file.state !== 'edited' && !recorded.has(file.path))
        .map((file) => ({ asset: item.id, file: file.path })),
    );
}

/**
 * After a build: the sidecar of every file on disk as assetgen made it (built, resumed, unchanged:
 * a missing one comes back, free), none for a file edited by hand; the sidecar of a file that stopped
 * being an output at this build (formerOutputs: a re-cut's dropped frame, a pruned asset's file) goes.
 */
export async function writeBuildSidecars(
  root: string,
  plan: Plan,
  items: readonly Pick<AssetResult, 'id' | 'outcome' | 'files'>[],
  lock: Lock,
  place: SidecarPlace,
): Promise<SidecarsWritten> {
  const assets = new Map(plan.items.map((item) => [item.id, item.asset]));
  const records = items
    .filter((item) => CURRENT.has(item.outcome) && entryOf(lock, item.id))
    .flatMap((item) => provenanceRecords(item.id, entryOf(lock, item.id)!, assets.get(item.id), plan.service));
  const result = await writeSidecars(root, records, place);
  removeFormerSidecars(root, formerOutputs(plan, items, lock), place, result, lock);
  result.removed.sort();
  if (!result.removed.length) return result;
  const { failed, ...rest } = result;
  return { ...rest, moved: result.moved ?? 0, failed };
}

/** Outcomes whose files are the lock's, on disk, as assetgen wrote them. */
const CURRENT = new Set<AssetOutcome>(['built', 'resumed', 'unchanged']);
/** Outcomes after which the lock's files of an asset are this build's (or none, pruned): the files it listed before and not now are former outputs. */
const FINISHED = new Set<AssetOutcome>(['built', 'resumed', 'restored', 'pruned']);
