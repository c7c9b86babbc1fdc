// Planning with a shared remote cache (docs/build.md "Remote cache"), pure like the rest of
// planning: the build asks the cache what it holds before planning (src/commands/project/remote.ts)
// and hands the answer here; an asset that would otherwise be paid for, and whose files the cache
// holds, is planned as `restore`, 0 credits. Two ways:
//  - by content: the lock records the asset at its current spec, and files it names (outputs, the
//    kept original, kept takes) are missing: each is fetched by its sha256 (a fresh clone, a CI runner);
//  - by spec: the lock has no entry at this spec (a new asset, another branch's), and the cache has
//    an entry for the spec hash (which includes the service) whose files it holds: the entry is
//    recorded in this lock as it was made elsewhere (`restoredFrom: 'remote-cache'`).
// Anything that does not fit (a file edited here, a path that is not the asset's, different post
// steps, a file already where one would go) is left to the normal plan.
import { postHash, originalsFolder } from './post.js';
import { inTarget } from './paths.js';
import { isTakeFile, takeAsFile } from './takes.js';
import type { FileHashes, Lock, LockedFile, LockEntry, PlanItem, RestoreSource } from './records.js';
import { entryOf } from './lock-history.js';

/** What the remote cache holds of what a plan would pay for, as found before planning. */
export interface RemoteAvailability {
  /** The sha256 of each file the cache holds. */
  files: ReadonlySet<string>;
  /** Entries by spec hash, checked (lock.ts), whose every file the cache holds. */
  specs: ReadonlyMap<string, LockEntry>;
  /**
   * The credits each agent (images) or workflow cost where the entries were made, keyed as plan.ts
   * LastCharges: prices seen on other machines, for estimates (learned prices, issue 28 point 5).
   */
  prices: ReadonlyMap<string, number>;
}

/** Every file a lock entry names: outputs, the kept original, kept takes. */
export function entryFiles(entry: LockEntry): LockedFile[] {
  return [...entry.files, ...(entry.original ? [entry.original] : []), ...(entry.candidates ?? []).map(takeAsFile)];
}

/** What to ask the cache about for a plan: the missing files of entries at their spec, and the specs the lock lacks. */
export function restoreQuestions(items: readonly PlanItem[], lock: Lock): { files: LockedFile[]; specs: string[] } {
  const files = new Map<string, LockedFile>();
  const specs = new Set<string>();
  for (const item of items) {
    if (item.action !== 'generate' || item.kind === 'sheet') continue;
    const entry = entryOf(lock, item.id);
    if (entry?.spec === item.spec && !entry.job) {
      for (const file of entryFiles(entry)) if (item.status === 'missing') files.set(file.sha256, file);
    } else specs.add(item.spec);
  }
  return { files: [...files.values()], specs: [...specs] };
}

/**
 * The item, or a `restore` in its place when the cache holds what it needs (not with --force,
 * which asks for a new generation).
 */
export function withRestore(item: PlanItem, entry: LockEntry | undefined, hashes: FileHashes, remote: RemoteAvailability): PlanItem {
  if (item.action !== 'generate' || item.kind === 'sheet' || !item.asset) return item;
  if (entry?.spec === item.spec && !entry.job) return restoreByContent(item, entry, hashes, remote) ?? item;
  return restoreBySpec(item, hashes, remote) ?? item;
}

function restoreByContent(item: PlanItem, entry: LockEntry, hashes: FileHashes, remote: RemoteAvailability): PlanItem | undefined {
  if (item.status !== 'missing') return undefined;
  const missing: LockedFile[] = [];
  for (const file of entryFiles(entry)) {
    const found = hashes.get(file.path);
    if (found === undefined) return undefined;
    if (found === null) missing.push(file);
    // Someone's edit is never replaced by a restore (it is theirs: --force regenerates).
    else if (found.sha256 !== file.sha256 || found.size !== file.size) return undefined;
  }
  if (!missing.length || !missing.every((file) => remote.files.has(file.sha256))) return undefined;
  return restoreItem(item, { files: missing }, [
    `${missing.map((file) => file.path).join(', ')} missing`,
    'restored from the remote cache by content, 0 credits',
  ]);
}

function restoreBySpec(item: PlanItem, hashes: FileHashes, remote: RemoteAvailability): PlanItem | undefined {
  const cached = remote.specs.get(item.spec);
  const asset = item.asset!;
  if (!cached || cached.spec !== item.spec || cached.kind !== item.kind) return undefined;
  if (cached.agent !== asset.agent || cached.workflow !== asset.workflow) return undefined;
  // Post steps are not part of the spec: the entry's outputs are this manifest's only with the same steps.
  if (cached.post !== (asset.post ? postHash(asset.post) : undefined)) return undefined;
  const fits =
    cached.files.length > 0 &&
    cached.files.every((file) => inTarget(file.path, asset.id, asset.out)) &&
    (!cached.original || cached.original.path.startsWith(`${originalsFolder(asset.id)}/`)) &&
    (cached.candidates ?? []).every((take) => isTakeFile(asset.id, take.file));
  if (!fits) return undefined;
  const files = entryFiles(cached);
  // Only into free places (hashed before planning): a file there is someone's, or the last build's.
  if (!files.every((file) => hashes.get(file.path) === null && remote.files.has(file.sha256))) return undefined;
  const made = cached.credits === null || cached.credits === undefined ? '' : ` (made elsewhere for ${cached.credits} credits)`;
  return restoreItem(item, { files, entry: cached }, [
    ...item.reasons.slice(0, 1),
    `restored from the remote cache by its spec${made}, 0 credits`,
  ]);
}

function restoreItem(item: PlanItem, restore: RestoreSource, reasons: string[]): PlanItem {
  const { takes: _takes, takePrice: _price, generation: _generation, reusesKey: _reuses, ...rest } = item;
  return { ...rest, action: 'restore', reasons, estimate: 0, restore };
}
