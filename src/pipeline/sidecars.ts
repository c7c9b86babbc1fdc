// `provenance:` in the manifest: after a build, each output's record (./provenance.ts) written as
// `<file>.assetgen.json`, where the manifest says (records.ts SidecarPlace): mirrored under a folder of
// their own, .assetgen/provenance/ by default, which never ships with the game (a sidecar holds the
// prompt, the service host and the idempotency key), or beside each output. Through the one
// confinement rule and atomically; the image itself is never opened for writing (a provider's C2PA
// signature covers its bytes). A sidecar that already says the same is left alone, so a build that
// changes nothing writes nothing; a missing one is written again. A build keeps one sidecar per
// output: assetgen's own in the other place (an earlier build's, before the setting changed) goes.
import { PathRefusedError, placeIn, readRegularFile, readRegularFileSync, removeInside, writeFileInside } from '../files/confine.js';
import type { Lock, Plan, SidecarPlace } from './records.js';
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
  /** assetgen's sidecars of these outputs in the other place, removed (moved, with `written`). */
  removed: string[];
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
          if (removeOurSidecar(root, earlier, record.file)) result.removed.push(earlier);
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
    if (!isOurSidecar(there, file)) throw new PathRefusedError(`${sidecar} is in the way: a file assetgen did not write.`);
  }
  await writeFileInside(root, sidecar, text);
  return true;
}

/** An assetgen sidecar of the output `file` (`generator: "assetgen"`, the same `file`). */
function isOurSidecar(text: string | undefined, file: string): boolean {
  try {
    const record = JSON.parse(text ?? '') as { generator?: unknown; file?: unknown };
    return record.generator === 'assetgen' && record.file === file;
  } catch {
    return false;
  }
}

/**
 * Removes the sidecar at `sidecar` when it is assetgen's for the output `file`, by the confinement
 * rule; anything else of that name (a user's file, a link, a folder) stays. True when removed.
 */
function removeOurSidecar(root: string, sidecar: string, file: string): boolean {
  const place = placeIn(root, sidecar);
  if (place.entry !== 'file' || !isOurSidecar(readRegularFileSync(place.file, sidecar, 'utf8'), file)) return false;
  removeInside(root, sidecar);
  return true;
}

/** Removes the sidecars of pruned files, in both places. */
export function removeSidecars(root: string, files: readonly string[], place: SidecarPlace): void {
  for (const file of files) for (const where of [place, otherPlace(place)]) removeOurSidecar(root, sidecarPath(file, where), file);
}

/**
 * After a build: the sidecar of every file on disk as assetgen made it (built, resumed, unchanged:
 * a missing one comes back, free), none for a file edited by hand; a pruned file's sidecar goes too.
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
    .filter((item) => CURRENT.has(item.outcome) && lock.assets[item.id])
    .flatMap((item) => provenanceRecords(item.id, lock.assets[item.id], assets.get(item.id), plan.service));
  const result = await writeSidecars(root, records, place);
  for (const item of items.filter((entry) => entry.outcome === 'pruned')) {
    try {
      removeSidecars(root, item.files, place);
    } catch (error) {
      result.failed.push({
        path: sidecarPath(item.files[0] ?? item.id, place),
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return result;
}

/** Outcomes whose files are the lock's, on disk, as assetgen wrote them. */
const CURRENT = new Set<AssetOutcome>(['built', 'resumed', 'unchanged']);
