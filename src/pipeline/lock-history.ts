// A shard's history: what `lock merge` needs to tell a shard's own change from a stale copy. A
// shard's `--lock-out` lock records, per asset, the sha256 of every entry it has held (`shardHistory`):
// first the project's entry it started from, then each state its build journalled. The merge takes an
// entry from a shard only when it differs from that start, and only while the project's entry is one
// of those states (./merge.ts); anything else would roll the asset back.
import path from 'node:path';
import { LockError } from './errors.js';
import { sha256, stableStringify } from './hash.js';
import type { Lock, LockEntry } from './records.js';

/**
 * A lock's own entry for `id`, never one an object inherits: an asset may be called `toString` or
 * `constructor` (any id the manifest's rule allows), and `lock.assets[id]` would then read a
 * built-in function where the lock has no entry. Every read of an entry goes through this.
 */
export const entryOf = (lock: Lock, id: string): LockEntry | undefined => (Object.hasOwn(lock.assets, id) ? lock.assets[id] : undefined);

/** An entry as one text whatever its key or file order: two entries are the same when these are. '' for no entry. */
export function canonicalEntry(entry: LockEntry | null | undefined): string {
  if (!entry) return '';
  const files = [...entry.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return stableStringify({ ...entry, files });
}

/** The sha256 of canonicalEntry: what a shard's history records of an entry. */
export const entryDigest = (entry: LockEntry | null | undefined): string => sha256(canonicalEntry(entry));

/** The digest of no entry (the sha256 of the empty text): the start of an asset the project's lock did not have. */
export const NO_ENTRY = entryDigest(undefined);

/**
 * The states a shard lock's entry for `id` has been in, oldest first (the start first); undefined
 * when the lock has no history (the project's lock, or a shard's written by an assetgen before it).
 * An asset the shard's start did not list began as NO_ENTRY.
 */
export function historyOf(lock: Lock, id: string): readonly string[] | undefined {
  if (!lock.shardHistory) return undefined;
  return Object.hasOwn(lock.shardHistory, id) ? lock.shardHistory[id] : [NO_ENTRY];
}

/**
 * A change to `id` made in a shard's lock (by its writer, or replayed from its journal): its new
 * entry (null: gone) joins the asset's history, once. Nothing for a lock without a history. Replaying
 * a journal twice gives the same history.
 */
export function noteState(lock: Lock, id: string, entry: LockEntry | null | undefined): void {
  const history = lock.shardHistory;
  if (!history || typeof history !== 'object') return;
  const states = Object.hasOwn(history, id) ? history[id] : [NO_ENTRY];
  // Not a history (a damaged journal's): the lock's check, after the replay, names it.
  if (!Array.isArray(states)) return;
  const digest = entryDigest(entry);
  if (!states.includes(digest)) states.push(digest);
  history[id] = states;
}

/**
 * How a new `--lock-out` lock starts from the project's lock (`from`): the entries it lacks are
 * copied in, and each copied entry's digest starts its history. A lock with entries and no history
 * (a first run's journal written by an assetgen before histories) does not know its start: it gets
 * none, and merges as such locks always did. Changes `lock` in place.
 */
export function startShardLock(lock: Lock, from: Lock): void {
  const known = lock.shardHistory !== undefined || !Object.keys(lock.assets).length;
  if (known) lock.shardHistory ??= {};
  for (const [id, entry] of Object.entries(from.assets)) {
    if (Object.hasOwn(lock.assets, id)) continue;
    lock.assets[id] = structuredClone(entry);
    if (lock.shardHistory) lock.shardHistory[id] = [entryDigest(entry)];
  }
}

/**
 * The assets (of those `inScope` says this build covers) whose entry in the project's lock
 * (`project`) is none of the states a `--lock-out` lock's history records for them: that lock was
 * started from an older assetgen.lock (a finished round's file left in the workspace, say), so a build
 * from it would plan against entries the project has moved on from — and pay again for what
 * assetgen.lock already records, a result `lock merge` then refuses as stale. An interrupted run of
 * the same shard from the same project lock is never stale: its history starts with the project's
 * entries (or holds the states of it merged since). Empty for a lock without a history (written by
 * an assetgen before it: it cannot tell).
 */
export function staleStarts(lockOut: Lock, project: Lock, inScope: (id: string) => boolean = () => true): string[] {
  if (!lockOut.shardHistory) return [];
  const ids = new Set([...Object.keys(project.assets), ...Object.keys(lockOut.shardHistory)]);
  const stale: string[] = [];
  for (const id of [...ids].sort()) {
    // A sheet is packed for free (by the merge job's build, say): nothing paid could be thrown away.
    if (!inScope(id) || entryOf(project, id)?.kind === 'sheet') continue;
    if (!historyOf(lockOut, id)?.includes(entryDigest(entryOf(project, id)))) stale.push(id);
  }
  return stale;
}

/**
 * Refuses (exit 2, before anything is paid) a `--lock-out` lock (named `shown`, as the command line
 * gave it) whose start is older than the project's lock (staleStarts): what to do then depends on
 * whether it was merged, which only the user knows.
 */
export function refuseStaleLockOut(shown: string, lockOut: Lock, project: Lock, inScope?: (id: string) => boolean): void {
  const stale = staleStarts(lockOut, project, inScope);
  if (!stale.length) return;
  const named = stale.slice(0, 5).map((id) => `"${id}"`);
  const assets = `${stale.length === 1 ? 'asset' : 'assets'} ${named.join(', ')}${stale.length > named.length ? ` and ${stale.length - named.length} more` : ''}`;
  throw new LockError(
    `${shown} was started from an older assetgen.lock: for ${assets}, assetgen.lock now holds an entry that lock never had, ` +
      'so a build from it would plan against old entries and could pay again for what assetgen.lock already records.',
    `If ${shown} was never merged, merge it first (assetgen lock merge ${shown} …); then, or if it was merged already, ` +
      `remove it (and .${path.basename(shown)}.journal beside it, if there is one) and build the shard again: it starts from the current assetgen.lock. Nothing was charged.`,
  );
}
