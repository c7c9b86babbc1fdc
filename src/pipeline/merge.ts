// Joining the locks of a sharded build (`assetgen lock merge`). Each shard starts from the same
// committed lock and changes only its own assets, so per asset a three-way rule decides: keep the
// base unless a shard changed it; one distinct change wins; two different changes are a conflict.
// The result depends on the set of locks, never on their order.
import { LockError } from './errors.js';
import { stableStringify } from './hash.js';
import { emptyLock } from './lock.js';
import type { Lock, LockEntry } from './records.js';

export interface NamedLock {
  /** Names the lock in a conflict. */
  file: string;
  lock: Lock;
}

/**
 * Merges shard locks onto `base` (the project's assetgen.lock; empty when there is none). An asset
 * a shard does not list is no change from that shard: merging never drops an entry.
 */
export function mergeLocks(base: Lock | null, shards: readonly NamedLock[]): Lock {
  const start = base ?? emptyLock();
  const same = (a: LockEntry | undefined, b: LockEntry | undefined): boolean => canonical(a) === canonical(b);
  const ids = new Set([...Object.keys(start.assets), ...shards.flatMap((shard) => Object.keys(shard.lock.assets))]);
  const merged = emptyLock();
  const conflicts: string[] = [];
  for (const id of [...ids].sort()) {
    const original = start.assets[id];
    // Each distinct changed version, with the shards that hold it.
    const changes = new Map<string, { entry: LockEntry; files: string[] }>();
    for (const shard of shards) {
      const entry = shard.lock.assets[id];
      if (!entry || same(entry, original)) continue;
      const key = canonical(entry);
      const change = changes.get(key) ?? { entry, files: [] };
      change.files.push(shard.file);
      changes.set(key, change);
    }
    if (changes.size > 1) {
      const sides = [...changes.values()].map((change) => change.files.join(', '));
      conflicts.push(`Conflict on asset "${id}": the shard locks record different results (${sides.join(' vs ')}).`);
      continue;
    }
    const winner = changes.size === 1 ? [...changes.values()][0].entry : original;
    if (winner) merged.assets[id] = winner;
  }
  if (conflicts.length)
    throw new LockError(conflicts.join('\n'), 'Was an asset built in more than one shard? Rebuild it once, then merge again.');
  return merged;
}

/** Two entries are the same when they serialise the same (key order and file order do not matter). */
function canonical(entry: LockEntry | undefined): string {
  if (!entry) return '';
  const files = [...entry.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return stableStringify({ ...entry, files });
}
