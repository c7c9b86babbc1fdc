// Whole-file writes that a reader (or a crash) never sees half done: a temp file in the same
// folder, optionally flushed to disk, then renamed over the target. The lock, the gallery page and
// the installer's files all write this way; downloads stream through their own temp file (save.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface AtomicWriteOptions {
  mode?: number;
  /** fsync the temp file before the rename: the content survives a power cut, not just a crash. */
  durable?: boolean;
}

const tempBeside = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);

export async function writeFileAtomic(file: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const temp = tempBeside(file);
  try {
    const handle = await fs.promises.open(temp, 'wx', options.mode ?? 0o644);
    try {
      await handle.writeFile(content);
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(temp, file);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}

export function writeFileAtomicSync(file: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const temp = tempBeside(file);
  try {
    const fd = fs.openSync(temp, 'wx', options.mode ?? 0o644);
    try {
      fs.writeFileSync(fd, content);
      if (options.durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
