// The other thread of hash-preload.ts: hashes the files it is given (lock paths under `root`), in
// order, and answers once with two parallel lists (cheaper to pass between threads than a Map of
// 10,000 objects). A file that cannot be read is a size of -1.
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { hashFile } from './hash.js';
import type { HashAnswer, HashJob } from './hash-preload.js';

const { root, paths } = workerData as HashJob;
const answer: HashAnswer = { sha256: new Array<string>(paths.length).fill(''), size: new Float64Array(paths.length).fill(-1) };
for (let index = 0; index < paths.length; index++) {
  const hash = await hashFile(path.join(root, paths[index]));
  if (!hash) continue;
  answer.sha256[index] = hash.sha256;
  answer.size[index] = hash.size;
}
parentPort!.postMessage(answer);
