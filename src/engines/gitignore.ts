// The lines of a project's .gitignore that docs/build.md asks for: the lock's claim and journal
// (a running or killed build's, never to be committed), the gallery `assetgen report` writes by
// default, the temp files a save cut by kill -9 leaves, and the plan cache (this machine's own). Added once, at the end, only those
// missing; the user's own lines stay as they are.
import path from 'node:path';
import { LOCK_FILE } from '../pipeline/lock.js';
import { claimFileFor } from '../pipeline/lock-claim.js';
import { journalFileFor } from '../pipeline/lock-journal.js';
import { PLAN_CACHE_DIR } from '../pipeline/plan-cache.js';
import { appendLines, linesOf, type Splice } from './text-edit.js';

export const GITIGNORE = '.gitignore';

const HEADER = '# assetgen: never commit these (docs/build.md)';

/** The lines, given the name of the gallery `assetgen report` writes by default. */
export const ignoredLines = (report: string): string[] => [
  path.basename(claimFileFor(LOCK_FILE)),
  path.basename(journalFileFor(LOCK_FILE)),
  report,
  // assetgen's temp files: `.<name>.<host>-<pid>-<start>.<random>.assetgen` (src/files/temp-files.ts).
  '.*.assetgen',
  // The plan cache: stat signatures of this checkout's files, under this user's key (src/pipeline/plan-cache.ts).
  `${PLAN_CACHE_DIR}/`,
];

/** The splice that adds the missing lines (with the header, once), or none when all are there. */
export function gitignoreSplices(text: string, lines: readonly string[]): Splice[] {
  const present = new Set(linesOf(text).map((line) => line.text.trim()));
  const missing = lines.filter((line) => !present.has(line) && !present.has(`/${line}`));
  if (!missing.length) return [];
  return [appendLines(text, [...(present.has(HEADER) ? [] : [HEADER]), ...missing])];
}
