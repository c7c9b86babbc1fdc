// assetgen's own temp files, part of the confinement module (./confine.ts): every whole-file write
// (./atomic.ts), every download a save streams (src/cli/save.ts) and the lock claim's draft go
// through a hidden temp file beside their target, named
//
//   .<name>.<host>-<pid>-<start>.<random>.assetgen
//
// <host> a short hash of this machine's name, <pid> the writing process and <start> when that
// process started (Linux: its start time in clock ticks since boot, from /proc; elsewhere 0). A
// save cut by kill -9 leaves its temp file behind; the sweep below removes such a file only when
// it can prove the process that wrote it is gone:
//   - the name is exactly this form (any other file, however similar, is not assetgen's),
//   - it is a regular file (a link of that name is left alone, never followed),
//   - it was written on this machine (another machine sharing the folder may be writing it now),
//   - and no process with that pid runs now, or (Linux) the one that does started at another time,
//     so it is a later process that reuses the pid, not the writer.
// A live writer (this process included) always matches its own pid and start time, so its temp
// files are never taken from under it. Without /proc a live pid is trusted to be the writer: a
// file kept by a reused pid is only removed later, never wrongly.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** This machine, as the first 6 hex digits of its name's hash. */
export const HOST_TAG = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 6);

/**
 * A process's start time from /proc/<pid>/stat (field 22: clock ticks after boot): a number,
 * null when no such process runs, undefined where /proc cannot tell (not Linux).
 */
export function processStart(pid: number): number | null | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return fs.existsSync('/proc/self/stat') ? null : undefined;
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]);
  return Number.isSafeInteger(start) ? start : undefined;
}

const OWN_START = processStart(process.pid) ?? 0;

/** This process as temp names record it. */
export const WRITER_TAG = `${HOST_TAG}-${process.pid}-${OWN_START}`;

/** At most this many bytes of the target's name go into its temp's name (a name has 255 at most). */
const NAME_BYTES = 100;

function shortened(name: string): string {
  if (Buffer.byteLength(name) <= NAME_BYTES) return name;
  let kept = '';
  for (const character of name) {
    if (Buffer.byteLength(kept + character) > NAME_BYTES) break;
    kept += character;
  }
  return kept;
}

/** A fresh temp path beside `file` (same folder, so a rename into place never crosses file systems). */
export const tempFor = (file: string): string =>
  path.join(path.dirname(file), `.${shortened(path.basename(file))}.${WRITER_TAG}.${randomBytes(4).toString('hex')}.assetgen`);

const TEMP_NAME = /^\..*\.([0-9a-f]{6})-(\d{1,10})-(\d{1,20})\.[0-9a-f]{8}\.assetgen$/s;

/** The writer a temp name records; undefined for a name that is not an assetgen temp file. */
export function writerOf(name: string): { host: string; pid: number; start: number } | undefined {
  const match = TEMP_NAME.exec(name);
  if (!match) return undefined;
  return { host: match[1], pid: Number(match[2]), start: Number(match[3]) };
}

/** True only when the writer a temp name records is provably gone (the rule above). */
export function writerIsGone(writer: { host: string; pid: number; start: number }): boolean {
  if (writer.host !== HOST_TAG || !(writer.pid > 0)) return false;
  const start = processStart(writer.pid);
  if (start === null) return true;
  if (start !== undefined) return start !== writer.start;
  try {
    process.kill(writer.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes the stale temp files in a real folder (one the confinement rule returned): assetgen's
 * name, a regular file, its writer provably gone. Returns the names removed. Never throws: a
 * folder that cannot be read, or a file another sweep removed first, is left as it is.
 */
export function removeStaleTemps(realFolder: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(realFolder, { withFileTypes: true });
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    // readdir's own type, never a stat through a link: a link named like a temp file is not ours.
    if (!entry.isFile()) continue;
    const writer = writerOf(entry.name);
    if (!writer || !writerIsGone(writer)) continue;
    try {
      // unlink removes the name itself: had a link taken its place since, the link goes, not its target.
      fs.unlinkSync(path.join(realFolder, entry.name));
      removed.push(entry.name);
    } catch {
      // gone already, or not ours to remove after all
    }
  }
  return removed;
}
