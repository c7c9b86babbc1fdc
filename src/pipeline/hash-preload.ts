// Planning a large project has two long steps that do not need each other: reading and checking
// the manifest, and hashing every file the lock records. Once the lock is read, its files are
// hashed on a worker thread while the main thread reads the manifest (as git's preload-index stats
// the index's files on threads while it does other work): on two cores, the plan waits for the
// longer of the two instead of their sum. Nothing is preloaded on one core, or for a lock of few
// files, which take less time to hash than a thread takes to start.
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FileHash, Lock } from './records.js';
import { recordedFiles } from './plan.js';

/** Below this many files, hashing them on the main thread costs less than starting a thread (~15 ms). */
const PRELOAD_MIN_FILES = 1000;

/** What the worker (./hash-worker.ts) is given. */
export interface HashJob {
  root: string;
  paths: string[];
}

/** Its one answer: two lists in the order of `paths` (cheaper to pass than a Map of objects); size -1 for a file it could not read. */
export interface HashAnswer {
  sha256: string[];
  size: Float64Array;
}

export interface HashPreload {
  /** The hashes the thread took; an empty map if it failed (planning then hashes every file itself). */
  hashes: () => Promise<Map<string, FileHash | null>>;
  /** Ends the thread if it is still at work: the plan stopped before it needed the hashes. */
  stop: () => void;
}

/** Starts hashing the files `lock` records (lock paths under `root`) on another thread; undefined when not worth it. */
export function preloadHashes(root: string, lock: Lock): HashPreload | undefined {
  const paths = [...new Set(recordedFiles(lock))];
  if (paths.length < PRELOAD_MIN_FILES || os.availableParallelism() < 2) return undefined;
  const script = new URL('./hash-worker.js', import.meta.url);
  // Run from the TypeScript sources (as the unit tests do), there is no compiled worker to start.
  if (!fs.existsSync(script)) return undefined;
  const worker = new Worker(script, { workerData: { root, paths } satisfies HashJob });
  // The thread alone keeps no process alive (a plan that failed meanwhile ends at once); it is
  // ref'd while the plan waits for it.
  worker.unref();
  const answered = new Promise<Map<string, FileHash | null>>((resolve) => {
    worker.once('message', (answer: HashAnswer) => {
      const hashes = new Map<string, FileHash | null>();
      paths.forEach((file, index) => {
        const size = answer.size[index];
        hashes.set(file, size < 0 ? null : { sha256: answer.sha256[index], size });
      });
      resolve(hashes);
    });
    // Messages come before 'exit': an exit without one, or an error, leaves the hashing to planning.
    worker.once('error', () => resolve(new Map()));
    worker.once('exit', () => resolve(new Map()));
  });
  return {
    async hashes() {
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
