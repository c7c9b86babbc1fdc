// The other thread of hash-preload.ts. A hash job: hashes the files it is given (lock paths under
// `root`), in order, and answers once with parallel lists (cheaper to pass between threads than a
// Map of 10,000 objects); a file that cannot be read is a size of -1. A check job: compares each
// file's stat with its recorded stamp, and answers with one byte per file (1: unchanged).
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { hashFileStamped, sameStamp } from './hash.js';
import type { HashAnswer, HashJob, StampCheckAnswer, StampCheckJob } from './hash-preload.js';

const job = workerData as HashJob | StampCheckJob;
if (job.kind === 'check') {
  const { root, paths, times, ids } = job;
  const answer: StampCheckAnswer = new Uint8Array(paths.length);
  const base = root + path.sep;
  for (let index = 0; index < paths.length; index++) if (sameStamp(base + paths[index], times, ids, index)) answer[index] = 1;
  parentPort!.postMessage(answer);
} else {
  const { root, paths, stamped } = job;
  const answer: HashAnswer = { sha256: new Array<string>(paths.length).fill(''), size: new Float64Array(paths.length).fill(-1) };
  if (stamped) answer.stamps = new Array(paths.length);
  for (let index = 0; index < paths.length; index++) {
    const hashed = await hashFileStamped(path.join(root, paths[index]), stamped);
    if (!hashed) continue;
    answer.sha256[index] = hashed.hash.sha256;
    answer.size[index] = hashed.hash.size;
    if (answer.stamps) answer.stamps[index] = hashed.stamp;
  }
  parentPort!.postMessage(answer);
}
