// What `assetgen build` and `assetgen report` start from: the manifest (found from the current
// directory upward, or -f), its lock's path, and the service that is part of every asset's spec.
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { serviceId } from '../../pipeline/hash.js';
import { preloadHashes } from '../../pipeline/hash-preload.js';
import { lockFileFor, readLock } from '../../pipeline/lock.js';
import { loadManifest, locateManifest } from '../../pipeline/manifest.js';
import type { FileHash, FileHashes, Lock, Manifest } from '../../pipeline/records.js';
import { hashProjectFiles, recordedFiles } from '../../pipeline/plan.js';
import { PlanCache } from '../../pipeline/plan-cache.js';
import { planCacheKey } from '../../config/plan-cache-key.js';
import { keepYoungGenerationSmall } from '../../heap.js';

export interface Project {
  file: string;
  manifest: Manifest;
  lockFile: string;
  /** The configured URL's host, or `mock`; '' when no service is configured. */
  service: string;
  /** What planning worked out last time (pipeline/plan-cache.ts), for hashing the project's files. */
  cache: PlanCache;
}

export function openProject(ctx: CommandContext, file: string | undefined): Project {
  keepYoungGenerationSmall();
  return projectAt(ctx, locateManifest(ctx.cwd, file, ctx.frontEnd.otherManifest));
}

function projectAt(ctx: CommandContext, found: string, cache = PlanCache.open(path.dirname(found), planCacheKey(ctx.env))): Project {
  return {
    cache,
    file: found,
    manifest: loadManifest(found, ctx.cwd, cache, { budgetIs: ctx.frontEnd.budgetIs }),
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
  keepYoungGenerationSmall();
  const found = locateManifest(ctx.cwd, file, ctx.frontEnd.otherManifest);
  const lockFile = lockFileFor(found);
  const cache = PlanCache.open(path.dirname(found), planCacheKey(ctx.env));
  // The files the cache recorded are stat'ed on another thread while the lock and the manifest are read.
  cache.checkAhead();
  let lock: Lock | undefined;
  let lockError: unknown;
  try {
    lock = readLock(lockFile, cache);
  } catch (error) {
    lockError = error;
  }
  // Without that (a first plan, few files recorded), the lock's files are hashed on a thread instead.
  const early = lock && !cache.checkingAhead ? startHashing(path.dirname(found), lock, cache) : undefined;
  const release = (): void => {
    early?.stop();
    cache.stop();
  };
  try {
    const project = projectAt(ctx, found, cache);
    if (!lock) throw lockError;
    return {
      ...project,
      lock,
      hashes: async () => hashProjectFiles(project.manifest, lock, await early?.hashes(), cache),
      release,
    };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * What is known of the lock's files before the manifest is read: the hashes the cache proves, and
 * the others hashed on a thread meanwhile (when enough for one). `hashes` gives both, with what the
 * thread hashed recorded in the cache.
 */
function startHashing(
  root: string,
  lock: Lock,
  cache: PlanCache,
): { hashes: () => Promise<Map<string, FileHash | null>>; stop: () => void } {
  const recorded = recordedFiles(lock);
  const trusted = cache.lookUp(recorded);
  const rest = trusted.size ? recorded.filter((file) => !trusted.has(file)) : recorded;
  // Before the thread reads a byte: a change after this moment shows in a file's signature.
  if (rest.length) cache.beginHashing();
  const preload = preloadHashes(root, rest, true);
  return {
    async hashes() {
      const hashes = new Map<string, FileHash | null>(trusted);
      if (!preload) return hashes;
      const done = await preload.hashes();
      for (const [file, hash] of done.hashes) {
        hashes.set(file, hash);
        cache.record(file, hash, done.stamps.get(file));
      }
      return hashes;
    },
    stop: () => preload?.stop(),
  };
}
