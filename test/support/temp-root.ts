// Where the fast tier's temp files go (vitest.config.ts sets the workers' TMPDIR to it): a Linux
// tmpfs with room to spare (/dev/shm), else the system's temp folder. The suite makes and removes
// tens of thousands of small files (temp homes, projects, the CLI's saves and journals); on a disk
// file system that is mostly kernel time — on this project's CI machines (ext4 mounted with
// `discard`) 10,000 files written and removed cost 1.1–2.0 s of CPU against 0.35–0.42 s on tmpfs
// (docs/benchmarks.md, "Session 28"). Nothing in the tests depends on which it is: every test makes
// its own folder under os.tmpdir() and removes it.
import fs from 'node:fs';
import { platform } from '../../src/platform.js';

const TMPFS = '/dev/shm';
/** Below this much free space the system's temp folder is used (a container's /dev/shm is often 64 MiB). */
const MIN_FREE_BYTES = 2 * 2 ** 30;

/** The folder for the tests' temp files, or undefined for the system's own. */
export function fastTempRoot(): string | undefined {
  if (platform() !== 'linux') return undefined;
  try {
    fs.accessSync(TMPFS, fs.constants.W_OK);
    const stats = fs.statfsSync(TMPFS);
    return stats.bavail * stats.bsize >= MIN_FREE_BYTES ? TMPFS : undefined;
  } catch {
    return undefined;
  }
}
