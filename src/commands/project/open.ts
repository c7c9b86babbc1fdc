// What `assetgen build` and `assetgen report` start from: the manifest (found from the current
// directory upward, or -f), its lock's path, and the service that is part of every asset's spec.
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { serviceId } from '../../pipeline/hash.js';
import { preloadHashes } from '../../pipeline/hash-preload.js';
import { lockFileFor, readLock } from '../../pipeline/lock.js';
import { loadManifest, locateManifest } from '../../pipeline/manifest.js';
import type { FileHashes, Lock, Manifest } from '../../pipeline/records.js';
import { hashProjectFiles } from '../../pipeline/plan.js';

export interface Project {
  file: string;
  manifest: Manifest;
  lockFile: string;
  /** The configured URL's host, or `mock`; '' when no service is configured. */
  service: string;
}

export function openProject(ctx: CommandContext, file: string | undefined): Project {
  return projectAt(ctx, locateManifest(ctx.cwd, file, ctx.frontEnd.otherManifest));
}

function projectAt(ctx: CommandContext, found: string): Project {
  return {
    file: found,
    manifest: loadManifest(found, ctx.cwd),
    lockFile: lockFileFor(found),
    service: serviceId(ctx.credentials().baseUrl?.value, ctx.globals.mock),
  };
}

/** A project to plan as it stands (a dry run, a report): with its lock, and the hashes of the files planning checks. */
export interface PlannedProject extends Project {
  lock: Lock;
  /** Hashes what planning needs (see hash-preload.ts: much of it may be done by then). */
  hashes: () => Promise<FileHashes>;
  /** Ends the hashing left in the background: call when the plan stops before asking for the hashes. */
  release: () => void;
}

/**
 * openProject and the lock, read in the order that lets the lock's files be hashed on another
 * thread while the manifest is read and checked (pipeline/hash-preload.ts). Errors are thrown in
 * the order the steps had one after the other: the manifest's, then the credentials', then the lock's.
 */
export function openPlannedProject(ctx: CommandContext, file: string | undefined): PlannedProject {
  const found = locateManifest(ctx.cwd, file, ctx.frontEnd.otherManifest);
  const lockFile = lockFileFor(found);
  let lock: Lock | undefined;
  let lockError: unknown;
  try {
    lock = readLock(lockFile);
  } catch (error) {
    lockError = error;
  }
  const preload = lock && preloadHashes(path.dirname(found), lock);
  try {
    const project = projectAt(ctx, found);
    if (!lock) throw lockError;
    return {
      ...project,
      lock,
      hashes: async () => hashProjectFiles(project.manifest, lock, await preload?.hashes()),
      release: () => preload?.stop(),
    };
  } catch (error) {
    preload?.stop();
    throw error;
  }
}
