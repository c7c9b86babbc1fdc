// Planning a large project has long steps that do not need each other: reading the lock and the
// manifest, and looking at every file the lock records. While the main thread reads, a worker
// thread looks at the files (as git's preload-index stats the index's files on threads while it
// does other work): on two cores, the plan waits for the longer of the two instead of their sum.
// Two jobs: checking the plan cache's recorded stat signatures (./plan-cache.ts), started as soon
// as the cache is read, and hashing files the cache cannot vouch for, started once the lock is
// read. Nothing runs on a thread on one core, or for few files, which take less time than a thread
// takes to start.
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileHash } from './records.js';
import type { FileStamp } from './hash.js';

/** Below this many files, hashing or stat'ing them on the main thread costs less than starting a thread (~15 ms). */
const PRELOAD_MIN_FILES = 1000;

/** What the worker (./hash-worker.ts) is given: files (lock paths under `root`) to hash… */
export interface HashJob {
  kind: 'hash';
  root: string;
  paths: string[];
  /** Take each file's stamp too (for the plan cache). */
  stamped: boolean;
}

/** …or files whose recorded stamps to compare with what they are now (plan-cache.ts's parallel lists). */
export interface StampCheckJob {
  kind: 'check';
  root: string;
  paths: string[];
  /** size, mtime ns, ctime ns per file. */
  times: BigInt64Array;
  /** inode, device per file. */
  ids: BigUint64Array;
}

/** The hash job's one answer: two lists in the order of `paths` (cheaper to pass than a Map of objects); size -1 for a file it could not read. */
export interface HashAnswer {
  sha256: string[];
  size: Float64Array;
  /** With `stamped`: each file's stamp (undefined where it could not be read). */
  stamps?: (FileStamp | undefined)[];
}

/** The check job's answer: 1 where the file is a regular file with exactly its recorded stamp, in the order of `paths`. */
export type StampCheckAnswer = Uint8Array;

/** What the thread hashed: each file's hash (null: not a readable file), and the stamps taken. */
export interface Preloaded {
  hashes: Map<string, FileHash | null>;
  stamps: Map<string, FileStamp>;
}

export interface HashPreload {
  /** The hashes the thread took; empty maps if it failed (planning then hashes every file itself). */
  hashes: () => Promise<Preloaded>;
  /** Ends the thread if it is still at work: the plan stopped before it needed the hashes. */
  stop: () => void;
}

/** A job on another thread: its one answer (undefined if the thread failed), or stopped. */
interface Ahead<T> {
  answer: () => Promise<T | undefined>;
  stop: () => void;
}

function runAhead<T>(job: HashJob | StampCheckJob): Ahead<T> | undefined {
  if (job.paths.length < PRELOAD_MIN_FILES || os.availableParallelism() < 2) return undefined;
  const script = new URL('./hash-worker.js', import.meta.url);
  // Run from the TypeScript sources (as the unit tests do), there is no compiled worker to start.
  if (!fs.existsSync(script)) return undefined;
  const worker = new Worker(script, { workerData: job });
  // The thread alone keeps no process alive (a plan that failed meanwhile ends at once); it is
  // ref'd while the plan waits for it.
  worker.unref();
  const answered = new Promise<T | undefined>((resolve) => {
    worker.once('message', (answer: T) => resolve(answer));
    // Messages come before 'exit': an exit without one, or an error, leaves the work to planning.
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
  return {
    async answer() {
      worker.ref();
      try {
        return await answered;
      } finally {
        worker.unref();
      }
    },
    stop: () => void worker.terminate(),
  };
}

/** Starts hashing `files` (lock paths under `root`) on another thread; undefined when not worth it. */
export function preloadHashes(root: string, files: readonly string[], stamped = false): HashPreload | undefined {
  const paths = [...new Set(files)];
  const ahead = runAhead<HashAnswer>({ kind: 'hash', root, paths, stamped });
  if (!ahead) return undefined;
  return {
    async hashes() {
      const done: Preloaded = { hashes: new Map(), stamps: new Map() };
      const answer = await ahead.answer();
      if (!answer) return done;
      paths.forEach((file, index) => {
        const size = answer.size[index];
        done.hashes.set(file, size < 0 ? null : { sha256: answer.sha256[index], size });
        const stamp = answer.stamps?.[index];
        if (stamp) done.stamps.set(file, stamp);
      });
      return done;
    },
    stop: ahead.stop,
  };
}

/** Starts comparing recorded stamps with the files on another thread; undefined when not worth it. */
export function checkStampsAhead(job: Omit<StampCheckJob, 'kind'>): Ahead<StampCheckAnswer> | undefined {
  return runAhead<StampCheckAnswer>({ kind: 'check', ...job });
}
