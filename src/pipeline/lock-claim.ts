// The one writer of a lock: a claim file beside it (`.assetgen.lock.writer`) names the process
// that writes it. A claim left by a process that died on this host is taken over; anything else
// is refused with what to do. The claim is made, read and removed by the confinement rule
// (src/files/confine.ts), inside the lock's folder: never through a link, only a regular file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFileInsideSync, PathRefusedError, readRegularFileSync, removeInside } from '../files/confine.js';
import { LockError } from './errors.js';

/** The claim beside a lock: `.assetgen.lock.writer`, holding who writes it. */
export const claimFileFor = (lockFile: string): string => path.join(path.dirname(lockFile), `.${path.basename(lockFile)}.writer`);

interface Claim {
  pid: number;
  host: string;
  since: string;
}

/** A claim too new to have been written in full yet is being written now, not abandoned. */
const HALF_WRITTEN_MS = 5_000;

/** Claims `lockFile` for this process; `root` is the folder its files must stay in (the lock's own). */
export function claim(lockFile: string, root: string = path.dirname(lockFile)): string {
  const claimFile = claimFileFor(lockFile);
  const mine: Claim = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    // Written whole as a draft (an assetgen temp file), then linked into place, which fails when a
    // claim is there: a process killed while claiming never leaves a half-written claim that looks alive.
    if (createFileInsideSync(root, claimFile, text)) return claimFile;
    const holder = readClaim(claimFile);
    if (holder === 'gone') continue;
    if (holder === 'unreadable' ? !oldEnough(claimFile) : !abandoned(holder)) {
      const who =
        holder === 'unreadable' ? 'another assetgen' : `another assetgen (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
      throw new LockError(
        `${lockFile} is being written by ${who}.`,
        `Wait for it to finish. If that process is gone, delete ${claimFile}.`,
      );
    }
    removeInside(root, claimFile);
  }
  throw new LockError(`Could not claim ${lockFile}: other processes keep claiming it.`);
}

function readClaim(file: string): Claim | 'gone' | 'unreadable' {
  try {
    const claim = JSON.parse(readRegularFileSync(file, file, 'utf8')) as Partial<Claim>;
    if (typeof claim.pid === 'number' && typeof claim.host === 'string')
      return { pid: claim.pid, host: claim.host, since: String(claim.since) };
    return 'unreadable';
  } catch (error) {
    // A FIFO or a device where the claim is: refused (PathRefusedError), never read.
    if (error instanceof PathRefusedError) throw error;
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable';
  }
}

const oldEnough = (file: string): boolean => Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) > HALF_WRITTEN_MS;

/** Left by a process that has died: only decidable on the same host, and never for this process. */
function abandoned(claim: Claim): boolean {
  if (claim.host !== os.hostname() || claim.pid === process.pid) return false;
  try {
    process.kill(claim.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
