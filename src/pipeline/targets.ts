// Before a build pays for anything: every place it will write or delete, checked by the one
// confinement rule (src/files/confine.ts) — inside the project through real paths, no folder that is
// a dangling link, no link where a file goes (a save never writes through one). The saves and prune
// check again with the same functions as they act.
import { PipelineError } from './errors.js';
import fs from 'node:fs';
import path from 'node:path';
import { folderIn, PathRefusedError, placeIn, placeToWrite, sweepFolder } from '../files/confine.js';
import { MEDIA_EXTENSIONS } from '../files/media.js';
import type { PlanAction, PlanItem } from './records.js';
import { originalsFolder } from './post.js';
import { sheetFiles } from './sheet.js';
import { candidatesFolder } from './takes.js';

/** Whether a file name (lower-cased) is `<id>.<ext>` for a media extension: what an image, a video or a kept original is saved as. */
const mediaNameOf = (id: string) => (lower: string) => Object.keys(MEDIA_EXTENSIONS).some((ext) => lower === `${id}${ext}`);

/** The actions that write an asset's outputs (the paid ones, a re-process, a move). */
const WRITING: ReadonlySet<PlanAction> = new Set(['generate', 'resume', 'reprocess', 'move']);

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
  /** A folder the build writes in, with no link there under a name `ours` says it may write. */
  const checkFolder = (dir: string, ours: (lowerName: string) => boolean): void => {
    const real = folderIn(root, dir, dir === '.' ? './' : `${dir}/`);
    if (!links.has(dir)) links.set(dir, linksIn(real));
    for (const name of links.get(dir)!) if (ours(name.toLowerCase())) throw linkInTheWay(path.posix.join(dir, name));
  };
  for (const item of items) {
    if (item.action === 'prune') for (const file of item.prunable) attempt(() => placeIn(root, file));
    for (const file of item.prunableTakes ?? []) attempt(() => placeIn(root, file));
    // A move writes each new path and deletes each old file it read, both by the save's own rule: a
    // regular file or nothing, never a link (planning hashed through it: the bytes may be anyone's).
    for (const move of item.action === 'move' ? (item.moves ?? []) : []) {
      attempt(() => placeToWrite(root, move.to));
      attempt(() => placeToWrite(root, move.from));
    }
    const asset = item.asset;
    const out = asset?.out;
    if (!asset || !out || !WRITING.has(item.action)) continue;
    const id = asset.id.toLowerCase();
    // Post-processing keeps the generated original in the project too (./post.ts): downloaded as
    // `<id>.<ext>`, or (post added to an asset built without it) named as the output it was.
    if (item.kind !== 'sheet' && (asset.post || item.action === 'reprocess')) {
      const source = item.source && path.posix.basename(item.source).toLowerCase();
      const named = mediaNameOf(id);
      attempt(() => checkFolder(originalsFolder(item.id), (name) => name === source || named(name)));
    }
    // Takes are saved as .assetgen/candidates/<id>/<k>.<ext> (./takes.ts).
    if (item.takes) attempt(() => checkFolder(candidatesFolder(item.id), (name) => /^[0-9]+\.[a-z0-9]+$/.test(name)));
    if (out.type === 'file') {
      // A sheet writes its data file beside its atlas.
      // The save's own rule: a new file or a regular one, never a link, a folder or a device.
      for (const file of item.kind === 'sheet' ? sheetFiles(out.path) : [out.path]) attempt(() => placeToWrite(root, file));
      continue;
    }
    attempt(() => checkFolder(out.dir, asset.kind === 'workflow' ? (name) => name.startsWith(`${id}-`) : mediaNameOf(id)));
  }
  if (problems.length)
    throw new PipelineError(
      `The build would write or delete outside the project, or through a link (nothing was sent):\n  ${[...new Set(problems)].join('\n  ')}`,
      'assetgen writes and deletes only inside the project, and never through a symbolic link: replace the link with a real folder or file.',
    );
}

function linkInTheWay(file: string): PathRefusedError {
  return new PathRefusedError(`${file} is a symbolic link; assetgen never writes through a link, nor replaces one.`);
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

/**
 * Before a paid build: the folders it may write in (every asset's output folder, kept originals,
 * the files the lock records, up to date or not) swept of assetgen's own stale temp files, the
 * saves an earlier build lost to a kill (src/files/temp-files.ts says which are provably stale). A
 * folder that does not exist, or that the rule refuses, is left alone (checkTargets has spoken).
 */
export function sweepTargetFolders(root: string, items: readonly PlanItem[]): void {
  const folders = new Set<string>(['.']);
  for (const item of items) {
    const out = item.asset?.out;
    if (out) folders.add(out.type === 'file' ? path.posix.dirname(out.path) : out.dir);
    if (item.asset?.post || item.source) folders.add(originalsFolder(item.id));
    if (item.takes) folders.add(candidatesFolder(item.id));
    for (const file of item.files) folders.add(path.posix.dirname(file.path));
  }
  for (const folder of folders) {
    try {
      sweepFolder(root, folder);
    } catch (error) {
      if (!(error instanceof PathRefusedError)) throw error;
    }
  }
}
