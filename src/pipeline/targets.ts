// Before a build pays for anything: every place it will write or delete, checked by the one
// confinement rule (src/files/confine.ts) — inside the project through real paths, no folder that is
// a dangling link, no link where a file goes (a save never writes through one). The saves and prune
// check again with the same functions as they act.
import { PipelineError } from './errors.js';
import fs from 'node:fs';
import path from 'node:path';
import { folderIn, PathRefusedError, placeIn } from '../files/confine.js';
import { MEDIA_EXTENSIONS } from '../files/media.js';
import type { PlanItem } from './plan.js';
import { originalsFolder } from './post.js';

/** Refuses (PipelineError, exit 2) a plan that would write or delete outside the project, or through a link. */
export function checkTargets(root: string, items: readonly PlanItem[]): void {
  const problems: string[] = [];
  const attempt = (check: () => void): void => {
    try {
      check();
    } catch (error) {
      if (!(error instanceof PathRefusedError)) throw error;
      problems.push(error.message);
    }
  };
  const links = new Map<string, Set<string>>();
  for (const item of items) {
    if (item.action === 'prune') for (const file of item.prunable) attempt(() => placeIn(root, file));
    const out = item.asset?.out;
    if (!out || (item.action !== 'generate' && item.action !== 'resume' && item.action !== 'reprocess')) continue;
    // Post-processing keeps the generated original in the project too (./post.ts).
    if (item.asset!.post || item.action === 'reprocess') attempt(() => folderIn(root, originalsFolder(item.id)));
    if (out.type === 'file') {
      attempt(() => {
        if (placeIn(root, out.path).entry === 'link') throw linkInTheWay(out.path);
      });
      continue;
    }
    attempt(() => {
      const real = folderIn(root, out.dir, out.dir === '.' ? './' : `${out.dir}/`);
      if (!links.has(out.dir)) links.set(out.dir, linksIn(real));
      const asset = item.asset!;
      for (const name of links.get(out.dir)!) {
        const lower = name.toLowerCase();
        const id = asset.id.toLowerCase();
        const ours =
          asset.kind === 'workflow' ? lower.startsWith(`${id}-`) : Object.keys(MEDIA_EXTENSIONS).some((ext) => lower === `${id}${ext}`);
        if (ours) throw linkInTheWay(path.posix.join(out.dir, name));
      }
    });
  }
  if (problems.length)
    throw new PipelineError(
      `The build would write or delete outside the project, or through a link (nothing was sent):\n  ${[...new Set(problems)].join('\n  ')}`,
      'assetgen writes and deletes only inside the project, and never through a symbolic link: replace the link with a real folder or file.',
    );
}

function linkInTheWay(file: string): PathRefusedError {
  return new PathRefusedError(`${file} is a symbolic link; a build never writes through a link, nor replaces one.`);
}

/** Names of the symbolic links directly in a folder (none when it does not exist yet). */
function linksIn(folder: string): Set<string> {
  try {
    return new Set(
      fs
        .readdirSync(folder, { withFileTypes: true })
        .filter((entry) => entry.isSymbolicLink())
        .map((entry) => entry.name),
    );
  } catch {
    return new Set();
  }
}
