// A file's stamp compared with the one the plan cache recorded (./plan-cache.ts): only node:fs, so
// the thread that compares 10,000 of them (./hash-worker.ts) starts without the hashing modules.
import fs from 'node:fs';

/**
 * Whether `file` is a regular file whose stat is exactly the stamp recorded at `index` of two
 * parallel lists (size, mtime, ctime; inode, device): stat'ed, links followed as hashing reads them, never read.
 */
export function sameStamp(file: string, times: BigInt64Array, ids: BigUint64Array, index: number): boolean {
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  const t = index * 3;
  const i = index * 2;
  return (
    stat !== undefined &&
    stat.isFile() &&
    stat.size === times[t] &&
    stat.mtimeNs === times[t + 1] &&
    stat.ctimeNs === times[t + 2] &&
    stat.ino === ids[i] &&
    stat.dev === ids[i + 1]
  );
}
