// The other thread of hash-preload.ts. A hash job: hashes the files it is given (lock paths under
// `root`), in order, and answers once with parallel lists (cheaper to pass between threads than a
// Map of 10,000 objects); a file that cannot be read is a size of -1. A check job: compares files'
// stats with their recorded stamps, chunk by chunk with the main thread (hash-preload.ts checkStamps).
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { checkStamps, type HashAnswer, type StampCheckAnswer, type WorkerData } from './hash-preload.js';
import { keepYoungGenerationSmall } from '../heap.js';

const job = workerData as WorkerData;
// Making this thread's isolate put V8's young-generation growth factor back to 2, for the whole
// process: set again (src/heap.ts).
if (job.keepYoungGenerationSmall) keepYoungGenerationSmall();
// Each job loads only what it needs: a thread comparing stamps starts sooner without the hashing modules.
if (job.kind === 'check') {
  const { sameStamp } = await import('./stamp.js');
  checkStamps(job, sameStamp);
  parentPort!.postMessage(true satisfies StampCheckAnswer);
} else {
  const { hashFileStamped } = await import('./hash.js');
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
