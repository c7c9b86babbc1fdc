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
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FileHash } from './records.js';
import type { FileStamp } from './hash.js';
import { youngGenerationKeptSmall } from '../heap.js';

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

/**
 * …or files whose recorded stamps to compare with what they are now (plan-cache.ts's parallel
 * lists), shared with the main thread: each takes the next CHECK_CHUNK files from `next` until none
 * are left, so the main thread, once its own reading is done, checks what the thread has not.
 */
export interface StampCheckJob {
  kind: 'check';
  root: string;
  paths: string[];
  /** size, mtime ns, ctime ns per file. */
  times: BigInt64Array;
  /** inode, device per file. */
  ids: BigUint64Array;
  /** One counter (shared): the index of the next file no thread has taken. */
  next: Int32Array;
  /** One byte per file (shared): 0 not checked yet, 1 unchanged, 2 changed or gone. */
  results: Uint8Array;
}

/** A job as the worker gets it: with whether to set the young generation's growth again (its isolate reset it). */
export type WorkerData = (HashJob | StampCheckJob) & { keepYoungGenerationSmall: boolean };

/** Files taken at a time from a check job's shared counter. */
export const CHECK_CHUNK = 256;

/** Checks files of `job` by taking chunks from its counter until none are left (on either thread). */
export function checkStamps(
  job: StampCheckJob,
  sameStamp: (file: string, times: BigInt64Array, ids: BigUint64Array, index: number) => boolean,
): void {
  const base = job.root + path.sep;
  for (;;) {
    const start = Atomics.add(job.next, 0, CHECK_CHUNK);
    if (start >= job.paths.length) return;
    const end = Math.min(start + CHECK_CHUNK, job.paths.length);
    for (let index = start; index < end; index++)
      job.results[index] = sameStamp(base + job.paths[index], job.times, job.ids, index) ? 1 : 2;
  }
}

/** The hash job's one answer: two lists in the order of `paths` (cheaper to pass than a Map of objects); size -1 for a file it could not read. */
export interface HashAnswer {
  sha256: string[];
  size: Float64Array;
  /** With `stamped`: each file's stamp (undefined where it could not be read). */
  stamps?: (FileStamp | undefined)[];
}

/** The check job's answer: that the thread has taken its last chunk (its results are in the shared bytes). */
export type StampCheckAnswer = true;

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
  const data: WorkerData = { ...job, keepYoungGenerationSmall: youngGenerationKeptSmall() };
  const worker = new Worker(script, { workerData: data });
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

/**
 * Starts comparing recorded stamps with the files on another thread; undefined when not worth it.
 * `results` gives the shared bytes once every file is checked: what the thread has not taken by
 * then is checked on the calling thread (`sameStamp`), and the thread's last chunk awaited.
 */
export function checkStampsAhead(
  job: Pick<StampCheckJob, 'root' | 'paths' | 'times' | 'ids'>,
  sameStamp: (file: string, times: BigInt64Array, ids: BigUint64Array, index: number) => boolean,
): { results: () => Promise<Uint8Array | undefined>; stop: () => void } | undefined {
  const shared: StampCheckJob = {
    kind: 'check',
    ...job,
    next: new Int32Array(new SharedArrayBuffer(4)),
    results: new Uint8Array(new SharedArrayBuffer(job.paths.length)),
  };
  const ahead = runAhead<StampCheckAnswer>(shared);
  if (!ahead) return undefined;
  return {
    async results() {
      checkStamps(shared, sameStamp);
      // The thread may still be on its last chunk; an answer missing (it failed) leaves those unchecked.
      const finished = await ahead.answer();
      return finished || shared.results.every((result) => result !== 0) ? shared.results : undefined;
    },
    stop: ahead.stop,
  };
}
