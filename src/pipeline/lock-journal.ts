// The lock's journal: during a build, each change to assetgen.lock is appended (and fsync'd, many
// changes per write) to `.assetgen.lock.journal` beside it, instead of rewriting the whole lock for
// every paid call — the promise is the same (no paid call whose key is not on disk first), at the
// cost of one small append. The lock is rewritten whole when the build ends; a build that died
// leaves the journal, which every reader of the lock replays (readLock) and the next writer folds in.
import path from 'node:path';
import { PathRefusedError, readRegularFileSync } from '../files/confine.js';
import { LockError } from './errors.js';
import type { Lock, LockEntry } from './records.js';
import { noteState } from './lock-history.js';
import { ASSET_ID } from './validate.js';

/** One change: an asset's entry as it now stands (null: gone), or the whole lock (`lock merge`). */
export type JournalRecord = { id: string; entry: LockEntry | null } | { lock: Lock };

/** `.assetgen.lock.journal` beside the lock. */
export const journalFileFor = (lockFile: string): string => path.join(path.dirname(lockFile), `.${path.basename(lockFile)}.journal`);

export const journalLine = (record: JournalRecord): string => `${JSON.stringify(record)}\n`;

/**
 * Applies one record: replaying a journal twice gives the same lock (every record says where things
 * stand). In a shard's lock, an entry's change also joins its history (lock-history.ts), as the
 * writer noted it; a whole lock brings its own history, or none.
 */
export function applyRecord(lock: Lock, record: JournalRecord): void {
  if ('lock' in record) {
    lock.assets = structuredClone(record.lock.assets);
    if (record.lock.shardHistory) lock.shardHistory = structuredClone(record.lock.shardHistory);
    else delete lock.shardHistory;
    return;
  }
  // record.id is an asset id (isRecord): never a key such as `__proto__`, whose assignment would not make an entry.
  if (record.entry) lock.assets[record.id] = record.entry;
  else if (Object.hasOwn(lock.assets, record.id)) delete lock.assets[record.id];
  noteState(lock, record.id, record.entry);
}

/**
 * The records of a journal, oldest first; none when there is no journal. A last line cut short (the
 * process died mid-append) was never acknowledged, so it is dropped; anything else unreadable is an error.
 */
export function readJournal(file: string): JournalRecord[] {
  let text: string;
  try {
    // Only a regular file: a FIFO here would block every command that reads the lock.
    text = readRegularFileSync(file, file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    if (error instanceof PathRefusedError) throw error;
    throw new LockError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  // The last piece after the final newline is empty, or a line torn by a crash: dropped either way.
  return text
    .split('\n')
    .slice(0, -1)
    .map((line, index) => {
      try {
        const record = JSON.parse(line) as unknown;
        if (isRecord(record)) return record;
      } catch {
        // reported below
      }
      throw new LockError(
        `${file}: line ${index + 1} is not a journal record.`,
        'The journal of an interrupted build holds its paid jobs: restore it if you can; deleting it makes the next build pay again for the jobs it recorded.',
      );
    });
}

function isRecord(value: unknown): value is JournalRecord {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  if ('lock' in record) return typeof record.lock === 'object' && record.lock !== null;
  // An id no manifest could have is no record assetgen wrote (and `__proto__` would not be an entry when applied).
  return (
    typeof record.id === 'string' &&
    ASSET_ID.test(record.id) &&
    (record.entry === null || (typeof record.entry === 'object' && !Array.isArray(record.entry)))
  );
}
