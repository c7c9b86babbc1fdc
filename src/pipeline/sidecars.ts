// `provenance: sidecar`: after a build, each output's record (./provenance.ts) written beside it as
// `<file>.assetgen.json`, through the one confinement rule and atomically; the image itself is never
// opened for writing (a provider's C2PA signature covers its bytes). A sidecar that already says the
// same is left alone, so a build that changes nothing writes nothing; a missing one is written again.
import { PathRefusedError, placeIn, readRegularFile, readRegularFileSync, removeInside, writeFileInside } from '../files/confine.js';
import type { Lock, Plan } from './records.js';
import type { AssetOutcome, AssetResult } from './outcome.js';
import { provenanceRecords, SIDECAR_SUFFIX, sidecarOf, sidecarText, type ProvenanceRecord } from './provenance.js';

export interface SidecarsWritten {
  /** Sidecars written (new or changed) by this build, relative to the project root. */
  written: string[];
  /** Sidecars that already said the same. */
  current: number;
  /** Sidecars that could not be written, each with why. */
  failed: { path: string; reason: string }[];
}

/** How many sidecars are checked or written at once. */
const AT_ONCE = 16;

export async function writeSidecars(root: string, records: readonly ProvenanceRecord[]): Promise<SidecarsWritten> {
  const result: SidecarsWritten = { written: [], current: 0, failed: [] };
  for (let start = 0; start < records.length; start += AT_ONCE) {
    await Promise.all(
      records.slice(start, start + AT_ONCE).map(async (record) => {
        const sidecar = sidecarOf(record.file);
        try {
          if (await writeSidecar(root, sidecar, sidecarText(record))) result.written.push(sidecar);
          else result.current++;
        } catch (error) {
          result.failed.push({ path: sidecar, reason: error instanceof Error ? error.message : String(error) });
        }
      }),
    );
  }
  result.written.sort();
  return result;
}

/** Writes one sidecar unless it says the same already; true when written. */
async function writeSidecar(root: string, sidecar: string, text: string): Promise<boolean> {
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
    if (!isOurSidecar(there, sidecar)) throw new PathRefusedError(`${sidecar} is in the way: a file assetgen did not write.`);
  }
  await writeFileInside(root, sidecar, text);
  return true;
}

/** An assetgen sidecar of the file `sidecar` describes (`generator: "assetgen"`, the same `file`). */
function isOurSidecar(text: string | undefined, sidecar: string): boolean {
  try {
    const record = JSON.parse(text ?? '') as { generator?: unknown; file?: unknown };
    return record.generator === 'assetgen' && record.file === sidecar.slice(0, -SIDECAR_SUFFIX.length);
  } catch {
    return false;
  }
}

/** Removes the sidecars of pruned files (by the confinement rule: a link itself, never its target). */
export function removeSidecars(root: string, files: readonly string[]): void {
  for (const file of files) {
    const sidecar = sidecarOf(file);
    const place = placeIn(root, sidecar);
    // Only a sidecar assetgen wrote for this file goes; a user's own file of that name stays.
    if (place.entry === 'file' && !isOurSidecar(readRegularFileSync(place.file, sidecar, 'utf8'), sidecar)) continue;
    removeInside(root, sidecar);
  }
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
): Promise<SidecarsWritten> {
  const assets = new Map(plan.items.map((item) => [item.id, item.asset]));
  const records = items
    .filter((item) => CURRENT.has(item.outcome) && lock.assets[item.id])
    .flatMap((item) => provenanceRecords(item.id, lock.assets[item.id], assets.get(item.id), plan.service));
  const result = await writeSidecars(root, records);
  for (const item of items.filter((entry) => entry.outcome === 'pruned')) {
    try {
      removeSidecars(root, item.files);
    } catch (error) {
      result.failed.push({ path: sidecarOf(item.files[0] ?? item.id), reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}

/** Outcomes whose files are the lock's, on disk, as assetgen wrote them. */
const CURRENT = new Set<AssetOutcome>(['built', 'resumed', 'unchanged']);
