// Renaming a finished temp file over its name (atomic writes, downloads, the lock, config files).
// On Windows a rename fails for a moment while another program holds the target or the temp file
// open without sharing delete: an antivirus scanner reading the new file, an editor or a game
// engine (Godot, Unity) re-importing a PNG. Other tools retry (graceful-fs, for one); so does this,
// on Windows only and a bounded number of times: past the bound, the last error goes up (the temp
// file is then the caller's to discard, and the target keeps its old content).
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isWindows } from '../platform.js';

/** The errors a held file gives on Windows (EACCES and EPERM for sharing violations, EBUSY for locks). */
const HELD = new Set(['EPERM', 'EBUSY', 'EACCES']);

/** Waits between attempts: 10 attempts over ~3 s in all, doubling from 10 ms and capped at 1 s. */
export const RENAME_RETRY_DELAYS_MS: readonly number[] = [10, 20, 40, 80, 160, 320, 640, 1000, 1000];

/** The wait before another attempt after `error` on attempt `attempt` (0-based), or undefined: give up. */
function retryDelay(error: unknown, attempt: number): number | undefined {
  if (!isWindows() || !HELD.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
  return RENAME_RETRY_DELAYS_MS[attempt];
}

/** The last error, saying how long it was retried, for the message a person sees. */
function givenUp(error: unknown, attempts: number): unknown {
  if (attempts > 1 && error instanceof Error) {
    const seconds = RENAME_RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0) / 1000;
    error.message = `${error.message} (still held by another program after ${attempts} attempts over ${seconds} s)`;
    (error as Error & { heldByAnotherProgram?: boolean }).heldByAnotherProgram = true;
  }
  return error;
}

export async function renameRetrying(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await fs.promises.rename(from, to);
      return;
    } catch (error) {
      const delay = retryDelay(error, attempt);
      if (delay === undefined) throw givenUp(error, attempt + 1);
      await sleep(delay);
    }
  }
}

/** The same, synchronously (config files, a lock folding a dead build's journal): the waits block. */
export function renameRetryingSync(from: string, to: string): void {
  for (let attempt = 0; ; attempt += 1) {
    try {
      fs.renameSync(from, to);
      return;
    } catch (error) {
      const delay = retryDelay(error, attempt);
      if (delay === undefined) throw givenUp(error, attempt + 1);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay);
    }
  }
}
