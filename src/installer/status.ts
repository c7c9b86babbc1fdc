// What the manifest records and what is on disk now: each file's state, each copy's state, and
// which copies still exist (update does not recreate a copy whose folder is gone).
import fs from 'node:fs';
import { hashOf } from './files.js';
import type { Manifest, ManifestFile } from './manifest.js';
import { installedTargets, skillRoot, type Target } from './targets.js';

export type FileState = 'installed' | 'edited' | 'missing' | 'pending-update';

export interface FileStatus extends ManifestFile {
  state: FileState;
}

export interface CopyStatus {
  target: Target;
  /** The worst state of its files. */
  state: FileState;
  /** The assetgen versions that wrote its files. */
  versions: string[];
}

export function fileStatuses(manifest: Manifest): FileStatus[] {
  return manifest.files.map((entry) => {
    const onDisk = hashOf(entry.path);
    const state: FileState = entry.pending
      ? 'pending-update'
      : onDisk === null
        ? 'missing'
        : onDisk === entry.sha256
          ? 'installed'
          : 'edited';
    return { ...entry, state };
  });
}

/** One status per installed copy. */
export function copyStatuses(manifest: Manifest, files = fileStatuses(manifest)): CopyStatus[] {
  return installedTargets(manifest).map((target) => {
    const mine = files.filter((file) => file.skillsDir === target.skillsDir);
    const states = new Set(mine.map((file) => file.state));
    const state = (['missing', 'edited', 'pending-update'] as const).find((s) => states.has(s)) ?? 'installed';
    const versions = [...new Set(mine.filter((file) => !file.pending).map((file) => file.version))];
    return { target, state, versions };
  });
}

/** The recorded copies, split by whether their folder still exists. */
export function recordedCopies(manifest: Manifest): { present: Target[]; gone: Target[] } {
  const all = installedTargets(manifest);
  const present = all.filter((target) => fs.existsSync(skillRoot(target.skillsDir)));
  return { present, gone: all.filter((target) => !present.includes(target)) };
}
