// Joining the locks of a sharded build (`assetgen lock merge`). Per asset, a three-way rule against
// the project's lock: keep its entry unless a shard changed the asset; one distinct change wins; two
// different changes are a conflict. What a shard changed is decided against the shard's own start,
// which its `--lock-out` lock records (`shardHistory`, ./lock-history.ts): an entry it holds as it
// found it is no change, even where the project's lock has moved on since (a stale copy, never a
// rollback); and a change it made is taken only onto a project entry that is a state of its own
// history (its start, or a state of it merged before), else it is stale: an error, nothing written.
// A shard lock without a history (written by an assetgen before it) is compared with the project's
// lock as before: every entry of it that differs is its change. The result depends on the set of
// locks, never on their order.
import { LockError } from './errors.js';
import { emptyLock } from './lock.js';
import { sha256 } from './hash.js';
import { canonicalEntry, entryOf, historyOf } from './lock-history.js';
import type { Lock, LockEntry } from './records.js';

export interface NamedLock {
  /** Names the lock in a conflict. */
  file: string;
  lock: Lock;
}

const CONFLICT_HINT = 'Was an asset built in more than one shard? Rebuild it once, then merge again.';
const STALE_HINT =
  'A shard lock merged before is stale once a later build changes its assets: leave it out (what it built is in assetgen.lock already). ' +
  'One from a run that started from an older assetgen.lock: build that shard again from the current one (a new --lock-out file) and merge that, or leave it out. ' +
  'Nothing was written.';

/** What the shards did to one asset: each distinct change with the shards that hold it, and the shards whose change is stale. */
interface AssetChanges {
  changes: Map<string, { entry: LockEntry; files: string[] }>;
  stale: string[];
}

/**
 * Merges shard locks onto `base` (the project's assetgen.lock; empty when there is none). An asset
 * a shard does not list is no change from that shard: merging never drops an entry.
 */
export function mergeLocks(base: Lock | null, shards: readonly NamedLock[]): Lock {
  const start = base ?? emptyLock();
  const ids = new Set([...Object.keys(start.assets), ...shards.flatMap((shard) => Object.keys(shard.lock.assets))]);
  const merged = emptyLock();
  const problems: string[] = [];
  let stale = false;
  let conflict = false;
  for (const id of [...ids].sort()) {
    const original = entryOf(start, id);
    const { changes, stale: staleIn } = changesTo(id, original, shards);
    if (staleIn.length) {
      stale = true;
      problems.push(
        `Stale shard lock on asset "${id}": ${[...new Set(staleIn)].sort().join(', ')} changed it from an entry assetgen.lock no longer holds ` +
          `(the shard started from an older assetgen.lock, or the entry changed here after it started); taking it would roll "${id}" back.`,
      );
    }
    if (changes.size > 1) {
      conflict = true;
      const sides = [...changes.values()].map((change) => change.files.join(', '));
      problems.push(`Conflict on asset "${id}": the shard locks record different results (${sides.join(' vs ')}).`);
      continue;
    }
    const winner = changes.size === 1 ? [...changes.values()][0].entry : original;
    if (winner) merged.assets[id] = winner;
  }
  if (problems.length) throw new LockError(problems.join('\n'), [stale && STALE_HINT, conflict && CONFLICT_HINT].filter(Boolean).join(' '));
  return merged;
}

/** The changes the shards made to asset `id`, whose entry in the project's lock is `original`. */
function changesTo(id: string, original: LockEntry | undefined, shards: readonly NamedLock[]): AssetChanges {
  const current = canonicalEntry(original);
  let currentDigest: string | undefined;
  const result: AssetChanges = { changes: new Map(), stale: [] };
  for (const shard of shards) {
    const entry = entryOf(shard.lock, id);
    if (!entry) continue;
    const key = canonicalEntry(entry);
    if (key === current) continue;
    const history = historyOf(shard.lock, id);
    if (history) {
      // As the shard found it: not its change, whatever the project's lock holds now.
      if (sha256(key) === history[0]) continue;
      currentDigest ??= sha256(current);
      if (!history.includes(currentDigest)) {
        result.stale.push(shard.file);
        continue;
      }
    }
    const change = result.changes.get(key) ?? { entry, files: [] };
    change.files.push(shard.file);
    result.changes.set(key, change);
  }
  return result;
}
