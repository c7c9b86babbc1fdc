// Whole-file writes that a reader (or a crash) never sees half done: a temp file in the same
// folder (./temp-files.ts names it), optionally flushed to disk, then renamed over the target
// (retried while Windows reports the file held by another program: ./rename.ts).
// Part of the confinement module: project files are written through writeFileInside (./confine.ts),
// which checks the place first; only the per-user config and the installer call these directly.
import fs from 'node:fs';
import { renameRetrying, renameRetryingSync } from './rename.js';
import { tempFor } from './temp-files.js';

export interface AtomicWriteOptions {
  mode?: number;
  /** fsync the temp file before the rename: the content survives a power cut, not just a crash. */
  durable?: boolean;
}

/** A file's content: whole, or as text in pieces written in order (a large file never held whole). */
export type FileContent = string | Uint8Array | Iterable<string>;

export async function writeFileAtomic(file: string, content: FileContent, options: AtomicWriteOptions = {}): Promise<void> {
  const temp = tempFor(file);
  try {
    const handle = await fs.promises.open(temp, 'wx', options.mode ?? 0o644);
    try {
      if (typeof content === 'string' || content instanceof Uint8Array) await handle.writeFile(content);
      else for (const batch of batches(content)) await handle.writeFile(batch);
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await renameRetrying(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}

/** Pieces of text joined into batches of about 256 KiB: a few writes, none of them the whole file. */
function* batches(pieces: Iterable<string>): Generator<string> {
  let batch = '';
  for (const piece of pieces) {
    batch += piece;
    if (batch.length >= 256 * 1024) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

export function writeFileAtomicSync(file: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const temp = tempFor(file);
  try {
    const fd = fs.openSync(temp, 'wx', options.mode ?? 0o644);
    try {
      fs.writeFileSync(fd, content);
      if (options.durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    renameRetryingSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
