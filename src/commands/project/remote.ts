// `assetgen build` with a shared remote cache (docs/build.md "Remote cache"): before planning, ask
// the cache (src/cache/remote-cache.ts) what it holds of what the plan would pay for; after
// planning, fetch the `restore` items' files (each checked against its sha256 and size, then
// placed by the confinement rule, never over a file that is there); after the build, upload what
// it made. Every problem is a warning and a miss: the plan then goes on as without a cache.
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { artifactHash, CACHE_LIMITS, RemoteCache, REMOTE_CACHE_ENV, remoteCacheConfig } from '../../cache/remote-cache.js';
import { createFileInsideSync, readRegularFile, removeInside } from '../../files/confine.js';
import { hashFiles, sha256, stableStringify } from '../../pipeline/hash.js';
import { parseLock } from '../../pipeline/lock.js';
import { entryOf } from '../../pipeline/lock-history.js';
import { lastCharges } from '../../pipeline/plan.js';
import { entryFiles, restoreQuestions, type RemoteAvailability } from '../../pipeline/remote.js';
import {
  LOCK_VERSION,
  type FileHash,
  type FileHashes,
  type Lock,
  type LockEntry,
  type Plan,
  type PlanItem,
} from '../../pipeline/records.js';
import type { LockWriter } from '../../pipeline/writer.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import type { ItemResult } from './records.js';
import type { ObservedPrices, PriceList } from '../../config/learned-prices.js';

/** The flags that name a cache (the environment may name one too). */
export interface RemoteCacheFlags {
  remoteCache?: string;
  remoteCacheReadOnly?: boolean;
}

/** What a spec entry holds, as uploaded: the lock entry of an asset at that spec (files, credits, agent or workflow, kind). */
const ENTRY_FORMAT = 'assetgen-spec-entry';
const ENTRY_VERSION = 1;

/** The cache the flags or the environment configure, or undefined; a URL that is not http(s) is a usage error (exit 2). */
export function openRemoteCache(ctx: CommandContext, flags: RemoteCacheFlags): RemoteCache | undefined {
  let config;
  try {
    config = remoteCacheConfig(flags, ctx.env);
  } catch (error) {
    throw new UsageError(
      `${flags.remoteCache !== undefined ? '--remote-cache' : REMOTE_CACHE_ENV.url}: ${(error as Error).message}.`,
      "Give the cache server's base URL, e.g. --remote-cache https://cache.example.com",
    );
  }
  return config && new RemoteCache(config, (message) => ctx.out.warn(sanitizeLine(message)));
}

/**
 * Asks the cache about a plan's paid assets: the missing files of entries at their spec (HEAD by
 * sha256), the entries of specs the lock lacks (GET, checked), and those entries' files. Returns
 * what it holds, and the hashes with the places those entries' files would go (planning restores
 * only into free places).
 */
export async function probeRemote(
  ctx: CommandContext,
  cache: RemoteCache,
  plan: Plan,
  lock: Lock,
  root: string,
  hashes: FileHashes,
): Promise<{ remote: RemoteAvailability; hashes: FileHashes }> {
  const questions = restoreQuestions(plan.items, lock);
  const entries = new Map<string, LockEntry>();
  await Promise.all(
    questions.specs.map(async (spec) => {
      const entry = await fetchSpecEntry(ctx, cache, spec);
      if (entry) entries.set(spec, entry);
    }),
  );
  const wanted = new Set(questions.files.map((file) => file.sha256));
  for (const entry of entries.values()) for (const file of entryFiles(entry)) wanted.add(file.sha256);
  const held = new Set<string>();
  await Promise.all(
    [...wanted].map(async (sha) => {
      if (await cache.has(artifactHash('file', sha))) held.add(sha);
    }),
  );
  const specs = new Map([...entries].filter(([, entry]) => entryFiles(entry).every((file) => held.has(file.sha256))));
  const places = [...specs.values()].flatMap((entry) => entryFiles(entry).map((file) => file.path)).filter((file) => !hashes.has(file));
  const more = places.length ? await hashFiles(root, places) : new Map<string, FileHash | null>();
  return {
    // prices: what each agent or workflow cost where the cached entries were made (keyed as
    // plan.ts lastCharges), in the build's plan options for estimates to learn from.
    remote: { files: held, specs, prices: lastCharges({ lockfileVersion: LOCK_VERSION, assets: Object.fromEntries(entries) }) },
    hashes: more.size ? new Map([...hashes, ...more]) : hashes,
  };
}

/** The cached entry of a spec, checked as a lock entry is (lock.ts); undefined for a miss or a bad one (warned). */
async function fetchSpecEntry(ctx: CommandContext, cache: RemoteCache, spec: string): Promise<LockEntry | undefined> {
  const what = `the entry of spec ${spec.slice(0, 12)}…`;
  const bytes = await cache.get(artifactHash('spec', spec), what, { maxBytes: CACHE_LIMITS.entryBytes });
  if (!bytes) return undefined;
  try {
    const data = JSON.parse(bytes.toString('utf8')) as { format?: unknown; version?: unknown; entry?: unknown };
    if (data?.format !== ENTRY_FORMAT || data.version !== ENTRY_VERSION)
      throw new Error(`not an ${ENTRY_FORMAT} of version ${ENTRY_VERSION}`);
    const checked = parseLock(JSON.stringify({ lockfileVersion: LOCK_VERSION, assets: { entry: data.entry } }), 'entry');
    const entry = sharedEntry(checked.assets.entry);
    if (entry.spec !== spec) throw new Error('it is the entry of another spec');
    return entry;
  } catch (error) {
    ctx.out.warn(sanitizeLine(`Remote cache ${cache.name}: ${what} is not usable (${(error as Error).message}): not used.`));
    return undefined;
  }
}

/**
 * The part of a lock entry that travels: what was made and what it cost, never a job in flight or
 * this lock's own marks. A cost of 0 (the asset's, or a take's) travels as null, not known, both
 * ways: every call that generates something is charged (service-api.md §1), so a 0 was recorded
 * from a replay that did not restate its original charge (an assetgen before 0 stopped being
 * taken for a price: build-prices.ts priceOfAnswer); no machine learns it as a price.
 */
function sharedEntry(entry: LockEntry): LockEntry {
  const { job: _job, postFailed: _failed, inputs: _inputs, restoredFrom: _restored, ...shared } = entry;
  if (shared.credits === 0) shared.credits = null;
  const known = <T extends { credits: number | null }>(take: T): T => (take.credits === 0 ? { ...take, credits: null } : take);
  if (shared.candidates) shared.candidates = shared.candidates.map(known);
  if (shared.prunedTakes) shared.prunedTakes = shared.prunedTakes.map(known);
  return shared;
}

/**
 * Fetches the files of the plan's `restore` items, each checked (size, sha256, the signature when
 * a key is set) before it is written, whole, by the confinement rule, never over a file that is
 * there; a spec entry is then recorded in the lock. Returns the assets restored, and the hashes
 * with their files. An asset not restored is left as it was (its files from a spec entry removed):
 * planning again pays for it as without a cache.
 */
export async function restorePlanned(
  ctx: CommandContext,
  cache: RemoteCache,
  items: readonly PlanItem[],
  root: string,
  writer: LockWriter,
  hashes: FileHashes,
): Promise<{ restored: ItemResult[]; hashes: FileHashes }> {
  const restored: ItemResult[] = [];
  const known = new Map(hashes);
  await Promise.all(
    items
      .filter((item) => item.action === 'restore' && item.restore)
      .map(async (item) => {
        const written: string[] = [];
        const done = await restoreFiles(ctx, cache, item, root, written);
        if (done && item.restore!.entry) await writer.restored(item.id, item.restore!.entry);
        if (!done) {
          // Files of an entry this lock does not record would be someone's files to the next plan.
          if (item.restore!.entry) for (const file of written) removeInside(root, file);
          return;
        }
        for (const file of item.restore!.files) known.set(file.path, { sha256: file.sha256, size: file.size });
        const files = item.restore!.files.map((file) => file.path);
        restored.push({ id: item.id, outcome: 'restored', files, credits: 0 });
        ctx.out.info(`✓ ${sanitizeLine(item.id)}  restored ${sanitizeLine(files.join(', '))} from the remote cache  (0 credits)`);
      }),
  );
  return { restored, hashes: known };
}

/** One asset's files, one after another; false at the first that could not be restored. */
async function restoreFiles(ctx: CommandContext, cache: RemoteCache, item: PlanItem, root: string, written: string[]): Promise<boolean> {
  for (const file of item.restore!.files) {
    const bytes = await cache.get(artifactHash('file', file.sha256), file.path, { maxBytes: file.size, expect: file });
    if (!bytes) return false;
    try {
      // Whole before it appears, and never over anything there (a file, a link): the no-clobber create.
      if (!createFileInsideSync(root, file.path, bytes)) throw new Error(`${file.path} appeared meanwhile`);
    } catch (error) {
      ctx.out.warn(sanitizeLine(`Remote cache ${cache.name}: ${item.id} not restored: ${(error as Error).message}.`));
      return false;
    }
    written.push(file.path);
  }
  return true;
}

/**
 * After a build: the files and the spec entry of each asset it made, uploaded where the cache
 * lacks them (HEAD first), a few assets at a time (each file read whole, checked against the lock
 * again). Not in read-only mode, nor once the cache failed.
 */
export async function uploadBuilt(cache: RemoteCache, lock: Lock, ids: readonly string[], root: string): Promise<void> {
  if (cache.config.readOnly) return;
  const queue = ids.filter((id) => {
    const entry = entryOf(lock, id);
    return entry?.spec && !entry.job && !entry.postFailed && entry.kind !== 'sheet';
  });
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined && !cache.down; id = queue.shift()) await uploadEntry(cache, entryOf(lock, id)!, root);
  };
  await Promise.all(Array.from({ length: Math.min(4, queue.length) }, worker));
}

async function uploadEntry(cache: RemoteCache, entry: LockEntry, root: string): Promise<void> {
  // The spec entry goes up last, after every file it names: with it there, so are they (one HEAD
  // for an asset the cache already holds, as most are on a build that finds them up to date).
  const specHash = artifactHash('spec', entry.spec!);
  if (await cache.has(specHash)) return;
  for (const file of entryFiles(entry)) {
    const hash = artifactHash('file', file.sha256);
    if (await cache.has(hash)) continue;
    const bytes = await readRegularFile(path.join(root, file.path), file.path).catch(() => undefined);
    // A file changed since the lock recorded it is not what the lock names: never uploaded under its hash.
    if (!bytes || bytes.length !== file.size || sha256(bytes) !== file.sha256) return;
    if (!(await cache.put(hash, file.path, bytes))) return;
  }
  const document = stableStringify({ format: ENTRY_FORMAT, version: ENTRY_VERSION, entry: sharedEntry(entry) });
  await cache.put(specHash, `the entry of spec ${entry.spec!.slice(0, 12)}…`, Buffer.from(document));
}

/**
 * The prices in the cache's entries (PlanOptions.remote.prices, keyed as pipeline/prices.ts
 * chargeKey) as the learned-prices store takes them: images by agent, workflows by workflow (a
 * video's price is published, never learned). A 0 is never one (sharedEntry): left out.
 */
export function cachedPrices(charges: ReadonlyMap<string, number>): ObservedPrices {
  const prices: PriceList = { agents: {}, workflows: {} };
  for (const [key, credits] of charges) {
    const [kind, id] = key.split('\u0000');
    if (!id || !(credits > 0)) continue;
    if (kind === 'image') prices.agents[id] = credits;
    else if (kind === 'workflow') prices.workflows[id] = credits;
  }
  return prices;
}
