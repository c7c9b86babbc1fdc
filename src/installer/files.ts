// The installer's disk primitives: hashing what is there, atomic writes, and the guards that keep
// every write a real copy inside the chosen directory.
import fs from 'node:fs';
import path from 'node:path';
import { InstallerError } from './errors.js';
import { sha256 } from './render.js';
import { readRegularFileSync } from '../files/confine.js';

/** The sha256 of a file, or null when it cannot be read (gone, say). */
export function hashOf(file: string): string | null {
  try {
    return sha256(readRegularFileSync(file));
  } catch {
    return null;
  }
}

/** A path with symlinks resolved as far as it exists: two spellings of one directory compare equal. */
export function canonical(dir: string): string {
  const rest: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(dir);
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** Refuses to write through a symlink below the skills directory: we write copies, never via links. */
export function assertNoLinks(base: string, file: string): void {
  const parts = path.relative(base, file).split(path.sep);
  let current = base;
  for (const part of parts) {
    current = path.join(current, part);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(current);
    } catch {
      return; // does not exist yet: nothing below it can be a link either
    }
    if (stat.isSymbolicLink()) {
      throw new InstallerError(`${current} is a symbolic link; assetgen writes real copies and will not write through it.`, {
        code: 'symlink_in_the_way',
        hint: 'Remove the link (or pick another agent or scope), then run the command again.',
      });
    }
  }
}

/** Directories that do not exist yet on the way down to `dir`, outermost first. */
export function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let current = dir; !fs.existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  return missing;
}

/** True when `file` lies strictly below `dir`. */
export function isInside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
