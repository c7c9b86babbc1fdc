// Planning: what a build would do, as a pure function of the manifest, the lock and the hashes of
// the files the lock records. The build loop plans, acts on each item (recording progress through
// LockWriter), and after a crash simply plans again from the lock on disk.
import path from 'node:path';
import { hashFiles, specHash, specParts, type FileStamp } from './hash.js';
import { entryOf } from './lock-history.js';
import type { PlanCache } from './plan-cache.js';
import type {
  FileCheck,
  FileHash,
  FileHashes,
  FileMove,
  Lock,
  LockEntry,
  LockJob,
  Manifest,
  ManifestAsset,
  Plan,
  PlanAction,
  PlanItem,
  PlanPrice,
  PlanStatus,
} from './records.js';
import { lastCharges, priceFor, type PriceIndex } from './prices.js';

export { estimateFor, lastCharges, type LastCharges } from './prices.js';
import { checkOwnership, type WorkflowNodes } from './owners.js';
import { inTarget } from './paths.js';
import { listIds } from './id-list.js';
import { commandLineLeftAlone, type LeftAloneWords } from '../api/left-alone.js';
import { MEDIA_EXTENSIONS } from '../files/media.js';
import { outputPathFor, planPost, postHash } from './post.js';
import { withRestore, type RemoteAvailability } from './remote.js';
import { inShard, selectIds, type Shard } from './shard.js';
import { planSheetItem, sheetFiles, sheetInputs } from './sheet.js';
import {
  droppedTakesReason,
  freshTakes,
  missingTakes,
  pickedTake,
  unpickedNote,
  takeList,
  takeOf,
  takeRange,
  takeState,
  wantedTakes,
  withPickedAsOriginal,
} from './takes.js';

export interface PlanOptions {
  /** The service host the assets are made on: part of every spec (a staging asset is not a production one). */
  service: string;
  /** Ids or globs; empty or absent: all. */
  select?: readonly string[];
  shard?: Shard;
  /** Regenerate every selected asset: up to date or edited by hand (a new generation each). */
  force?: boolean;
  /** Plan to delete the unchanged files of assets gone from the manifest. */
  prune?: boolean;
  /**
   * false when the service is not known (`assetgen report` with none configured): specs cannot be
   * compared, so an asset is judged by its files alone. Never for a build.
   */
  compareSpecs?: boolean;
  /** Node ids of workflows from the service (`workflows list`), for the ownership check (./owners.ts). */
  workflowNodes?: WorkflowNodes;
  /** `build --more K`: K more takes of each selected image asset, keeping every earlier one (./takes.ts). */
  more?: number;
  /** How the reader gave `more`, for the reasons the plan gives (ctx.frontEnd: `--more 2`, `` `more: 2` ``); default the flag. */
  moreOption?: string;
  /** How the reader picks a take (ctx.frontEnd.pick), for the note on an asset nobody picked; default the command. */
  pickCommand?: (id: string) => string;
  /**
   * How the reader has a file made that a build leaves alone (ctx.frontEnd.leftAlone): a file at an
   * asset's `out` assetgen did not make, an edited output, kept original or sheet; handed to
   * sheet.ts and post.ts for theirs. Default the command line's words ("left alone (--force replaces it)").
   */
  leftAlone?: LeftAloneWords;
  /** `build --prune-takes`: plan to delete the take files of each selected asset that are not picked. */
  pruneTakes?: boolean;
  /** What the remote cache holds (./remote.ts): assets it can give back are planned as `restore`, 0 credits. */
  remote?: RemoteAvailability;
  /** Prices this machine learned for the service (src/config/learned-prices.ts), used after the lock's own. */
  learnedPrices?: PriceIndex['learned'];
}

/** The reader's words for a file a build leaves alone: PlanOptions.leftAlone, or the command line's. */
const leftAloneWords = (options: PlanOptions): LeftAloneWords => options.leftAlone ?? commandLineLeftAlone;

/**
 * What planning needs hashed: every file the lock records, every single-file `out` of the manifest
 * (a sheet's: its atlas and its data file, either of which may be someone else's file), and where
 * the outputs of an asset whose `out` moved go now (movedTargets).
 */
export function filesToHash(manifest: Manifest, lock: Lock): string[] {
  const targets = manifest.assets.flatMap((asset) => {
    const entry = entryOf(lock, asset.id);
    if (asset.out.type !== 'file') return entry ? movedTargets(asset, entry) : folderOutputNames(asset);
    return asset.kind === 'sheet' ? sheetFiles(asset.out.path) : [asset.out.path, ...movedTargets(asset, entry)];
  });
  return [...new Set([...recordedFiles(lock), ...targets])];
}

/**
 * Where each output the lock records for an asset goes once its `out` moved, the bytes unchanged:
 * an image's or a video's one file named as a save names it at the new `out` (./post.ts
 * outputPathFor: `<dir>/<id>.<its extension>`, or the file `out`), a workflow's each under its own
 * name in the new folder. Undefined when `out` did not move, and for assets not moved so: one with
 * post steps is re-processed from its kept original (./post.ts), a sheet is packed again (./sheet.ts).
 */
export function movesOf(asset: ManifestAsset, entry: LockEntry | undefined): FileMove[] | undefined {
  if (!entry?.files.length || entry.kind !== asset.kind || asset.kind === 'sheet') return undefined;
  // `out` did not move (every plan, every built asset): decided before any hash of the steps.
  if (entry.files.every((file) => inTarget(file.path, asset.id, asset.out))) return undefined;
  // A processed output moves as it is only while its steps are the ones that made it (else it is
  // made again, from the kept original when there is one).
  if (entry.postFailed || entry.candidates || (asset.post ? postHash(asset.post) : undefined) !== entry.post) return undefined;
  const out = asset.out;
  if (asset.kind === 'workflow') {
    if (out.type !== 'folder') return undefined;
    return entry.files.map((file) => ({ from: file.path, to: path.posix.join(out.dir, path.posix.basename(file.path)) }));
  }
  if (entry.files.length !== 1) return undefined;
  const from = entry.files[0].path;
  return [{ from, to: outputPathFor(asset, from) }];
}

/**
 * The paths planning looks at for an asset whose `out` moved: each new path (holding the recorded
 * bytes already, a file in the way, or nothing), and for an image or a video in a folder every name
 * a save may give it there (a file of its stem is someone's work, as for a new asset).
 */
function movedTargets(asset: ManifestAsset, entry: LockEntry | undefined): string[] {
  const moves = movesOf(asset, entry);
  return moves ? [...moves.map((move) => move.to), ...folderOutputNames(asset)] : [];
}

/** What planning knows of an asset whose `out` moved (movesOf): whether its bytes are at hand, and a file in the way. */
interface MoveCheck {
  moves: FileMove[];
  /** Each recorded output is unchanged where it was, or its bytes are at its new path already. */
  ready: boolean;
  /** A file where the asset now goes that assetgen did not make (not the recorded bytes, and no asset's in the lock). */
  foreign?: string;
}

function checkMove(asset: ManifestAsset, entry: LockEntry | undefined, hashes: FileHashes, lock: Lock): MoveCheck | undefined {
  const moves = movesOf(asset, entry);
  if (!moves) return undefined;
  const recorded = entry!.files;
  const holds = (file: string, index: number): boolean => {
    const found = hashes.get(file);
    return !!found && found.sha256 === recorded[index].sha256 && found.size === recorded[index].size;
  };
  const someones = (file: string): boolean => !!hashes.get(file) && !lockedPaths(lock).has(file);
  let ready = true;
  let foreign: string | undefined;
  moves.forEach((move, index) => {
    if (holds(move.to, index)) return;
    if (!holds(move.from, index)) ready = false;
    if (!foreign && someones(move.to)) foreign = move.to;
  });
  // The file `out` itself, or (in a folder) a file of the asset's stem under another extension.
  const others = asset.out.type === 'file' ? [asset.out.path] : folderOutputNames(asset);
  foreign ??= others.find((name) => !moves.some((move) => move.to === name) && someones(name));
  return { moves, ready, foreign };
}

/**
 * The names a first build of an image or video asset with a folder `out` may save its output
 * under: `<dir>/<id>` with each extension of its kind (the bytes decide which). A file already
 * there is someone's work, left alone as at a single-file `out`. Only for assets the lock does not
 * know (an up-to-date project stats nothing more).
 */
function folderOutputNames(asset: ManifestAsset): string[] {
  if (asset.out.type !== 'folder' || (asset.kind !== 'image' && asset.kind !== 'video')) return [];
  const kind = asset.kind;
  const stem = asset.out.dir === '.' ? asset.id : `${asset.out.dir}/${asset.id}`;
  return Object.entries(MEDIA_EXTENSIONS)
    .filter(([, kinds]) => kinds.includes(kind))
    .map(([extension]) => `${stem}${extension}`);
}

const lockedPathSets = new WeakMap<Lock, Set<string>>();

/** Every file the lock records, as a set: made once per lock, and only when a plan asks. */
function lockedPaths(lock: Lock): Set<string> {
  let paths = lockedPathSets.get(lock);
  if (!paths) lockedPathSets.set(lock, (paths = new Set(recordedFiles(lock))));
  return paths;
}

/** The files the lock records (each entry's files and kept original), which planning checks. */
export function recordedFiles(lock: Lock): string[] {
  const files: string[] = [];
  for (const entry of Object.values(lock.assets)) {
    for (const file of entry.files) files.push(file.path);
    if (entry.original) files.push(entry.original.path);
    if (entry.candidates) for (const take of entry.candidates) files.push(take.file);
  }
  return files;
}

/**
 * Hashes what planning needs, relative to the project root. `preloaded` holds hashes already taken
 * (./hash-preload.ts): only the other files are read, and added to it. With `cache`, a file whose
 * stat signature is the one recorded is not read (./plan-cache.ts), and what is hashed is recorded.
 */
export async function hashProjectFiles(
  manifest: Manifest,
  lock: Lock,
  preloaded?: Map<string, FileHash | null>,
  cache?: PlanCache,
): Promise<Map<string, FileHash | null>> {
  const files = filesToHash(manifest, lock);
  const hashes = preloaded ?? new Map<string, FileHash | null>();
  if (cache) for (const [file, hash] of await cache.lookUpAhead(files)) hashes.set(file, hash);
  const rest = hashes.size ? files.filter((file) => !hashes.has(file)) : files;
  if (rest.length) {
    cache?.beginHashing();
    const stamps = cache && new Map<string, FileStamp>();
    for (const [file, hash] of await hashFiles(manifest.root, rest, 8, stamps)) {
      hashes.set(file, hash);
      cache?.record(file, hash, stamps!.get(file));
    }
  }
  cache?.save();
  return hashes;
}

export function planBuild(manifest: Manifest, lock: Lock, hashes: FileHashes, options: PlanOptions): Plan {
  // Plain loops, and no set of every id unless selectors need one: planning 10,000 up-to-date
  // assets is a step of every build, and each copy of the ids is work for the garbage collector.
  const inManifest = new Set<string>();
  for (const asset of manifest.assets) inManifest.add(asset.id);
  const removedIds = Object.keys(lock.assets)
    .filter((id) => !inManifest.has(id))
    .sort();
  const { selected, unmatched } = options.select?.length
    ? selectIds([...inManifest, ...removedIds], options.select)
    : { selected: undefined, unmatched: [] };
  const wanted = (id: string): boolean => (!selected || selected.has(id)) && inShard(id, options.shard);

  // The estimates' index, made when the first asset to generate asks (none does in an up-to-date plan).
  let prices: PriceIndex | undefined;
  const pricesOnce = (): PriceIndex =>
    (prices ??= { observed: lastCharges(lock), learned: options.learnedPrices, declared: manifest.prices });
  // Sheets are planned last: whether one is packed again depends on what the build makes of its inputs.
  const planned = new Map<string, PlanItem>();
  let sheets = false;
  for (const asset of manifest.assets) {
    if (asset.kind === 'sheet') sheets = true;
    else if (wanted(asset.id)) {
      const item = planAsset(asset, lock, hashes, options, pricesOnce);
      planned.set(asset.id, options.remote && !options.force ? withRestore(item, entryOf(lock, asset.id), hashes, options.remote) : item);
    }
  }
  if (sheets) {
    const building = new Set(
      [...planned.values()].filter((item) => item.action !== 'none' && item.action !== 'keep').map((item) => item.id),
    );
    // With --shard, a sheet an input of which another shard makes in this build is packed by no
    // shard (none has all its inputs), but by the build the merge job runs once `lock merge` has
    // joined every shard's lock (docs/ci.md): packing is free, and then every input is there.
    const elsewhere =
      options.shard && madeByOtherShards(manifest.assets, lock, hashes, { ...options, shard: options.shard }, pricesOnce, selected);
    const leftAlone = leftAloneWords(options);
    // A selection takes along the sheets its assets feed (sheet.ts planSheetItem).
    for (const sheet of manifest.assets) {
      if (sheet.kind !== 'sheet' || !inShard(sheet.id, options.shard)) continue;
      if (elsewhere && sheetInputs(sheet.sheet!.from, manifest.assets).some(elsewhere)) continue;
      const files = (): FileCheck[] => checkFiles(entryOf(lock, sheet.id), hashes);
      const item = planSheetItem(sheet, manifest.assets, lock, { files, hashes, building, force: options.force, selected, leftAlone });
      if (item) planned.set(sheet.id, item);
    }
  }
  const items: PlanItem[] = [];
  for (const asset of manifest.assets) {
    const item = planned.get(asset.id);
    if (item) items.push(item);
  }
  for (const id of removedIds) if (wanted(id)) items.push(planRemoved(id, lock.assets[id], hashes, options));

  const saving = new Set<string>();
  for (const item of items) if (SAVING_ACTIONS.has(item.action)) saving.add(item.id);
  checkOwnership(manifest, lock, hashes, saving, options.workflowNodes ?? new Map());

  const estimate: Plan['estimate'] = { credits: 0, unknown: [] };
  let calls = 0;
  let paying = 0;
  for (const item of items) {
    if (item.estimate === null) estimate.unknown.push(item.id);
    else estimate.credits += item.estimate;
    if (item.action !== 'generate' && item.action !== 'resume') continue;
    paying += 1;
    calls += item.takes?.length ?? 1;
  }
  // Said when takes make it differ from one call per asset to generate or resume.
  if (calls !== paying) estimate.calls = calls;
  return { service: options.service, items, estimate, prices: planPrices(items), unmatched };
}

/**
 * Whether another shard makes an asset in this build: a shard plans the same manifest, lock and files
 * (each CI job starts from the same), so this shard can tell, planning that asset as its own shard
 * will (once each, when a sheet asks). An asset the selection leaves out is made by no shard.
 */
function madeByOtherShards(
  assets: readonly ManifestAsset[],
  lock: Lock,
  hashes: FileHashes,
  options: PlanOptions & { shard: Shard },
  prices: () => PriceIndex,
  selected: ReadonlySet<string> | undefined,
): (id: string) => boolean {
  let byId: Map<string, ManifestAsset> | undefined;
  const made = new Map<string, boolean>();
  return (id) => {
    if (inShard(id, options.shard) || (selected && !selected.has(id))) return false;
    let making = made.get(id);
    if (making === undefined) {
      byId ??= new Map(assets.map((asset) => [asset.id, asset]));
      const asset = byId.get(id);
      const action = asset && planAsset(asset, lock, hashes, options, prices).action;
      making = action !== undefined && action !== 'none' && action !== 'keep';
      made.set(id, making);
    }
    return making;
  };
}

/** The prices the plan's paying items use, one row per agent, workflow or the video job, each with its source. */
function planPrices(items: readonly PlanItem[]): PlanPrice[] {
  const rows = new Map<string, PlanPrice>();
  for (const item of items) {
    // Only the items whose estimate looked a price up: a resume of an answered call pays polls only.
    if (item.priceSource === undefined && item.estimate !== null) continue;
    const kind = item.kind === 'workflow' ? 'workflow' : item.kind === 'video' ? 'video' : 'image';
    const name = kind === 'workflow' ? item.workflow : kind === 'image' ? item.agent : undefined;
    const key = `${kind}\u0000${name ?? ''}`;
    const row = rows.get(key);
    if (row) {
      row.assets++;
      continue;
    }
    const credits = item.estimate === null ? null : (item.takePrice ?? item.estimate / (item.takes?.length || 1));
    rows.set(key, {
      kind,
      ...(name !== undefined ? { name } : {}),
      credits,
      ...(item.priceSource ? { source: item.priceSource } : {}),
      assets: 1,
      firstAsset: item.id,
    });
  }
  return [...rows.values()];
}

/** The actions that save files, whose outputs checkOwnership checks against the lock's. */
const SAVING_ACTIONS: ReadonlySet<PlanAction> = new Set(['generate', 'resume', 'reprocess', 'move', 'restore']);

function planAsset(asset: ManifestAsset, lock: Lock, hashes: FileHashes, options: PlanOptions, prices: () => PriceIndex): PlanItem {
  const spec = specHash(asset, options.service);
  const entry = entryOf(lock, asset.id);
  const files = checkFiles(entry, hashes);
  const leftAlone = leftAloneWords(options);
  // Fields assigned in the order of the --json document (not spread from conditional objects: this
  // runs for every asset of every plan, and each spread is a temporary object).
  const item = (status: PlanStatus, action: PlanAction, reasons: string[], sameGeneration = false, takes?: number[]): PlanItem => {
    const made: PlanItem = { id: asset.id, status, action, kind: asset.kind, spec } as PlanItem;
    if (asset.agent !== undefined) made.agent = asset.agent;
    if (asset.workflow !== undefined) made.workflow = asset.workflow;
    made.asset = asset;
    made.reasons = reasons;
    made.files = files;
    if (entry?.job) made.job = entry.job;
    // The same generation asks again with the key an earlier build sent: a replay may be that build's
    // charge. An entry without one (a lock from before generations) was built as generation 1.
    if (action === 'generate' && sameGeneration && entry) {
      made.generation = entry.generation ?? 1;
      // New takes of the same generation have keys never sent; a take made before is asked again.
      if (!takes?.length || takes.some((k) => takeOf(entry, k))) made.reusesKey = true;
    } else if (action === 'generate') made.generation = (entry ? (entry.generation ?? 1) : 0) + 1;
    const priced = action === 'generate' || (action === 'resume' && unanswered(entry?.job));
    const price = priced ? priceFor(asset, prices()) : null;
    made.estimate = priced ? (price?.credits ?? null) : 0;
    if (takes && (takes.length || action === 'resume') && (action === 'generate' || action === 'resume')) {
      // Each take is its own paid call: the estimate is their number times one's price (the
      // resumed take's only when its answer was never recorded).
      const take = priceFor(asset, prices());
      const price = take?.credits ?? null;
      const resumed = action === 'resume' && entry?.job?.take !== undefined && takes.includes(entry.job.take) ? 1 : 0;
      const paid = takes.length - resumed + (resumed && unanswered(entry?.job) ? 1 : 0);
      made.takes = takes;
      made.takePrice = price;
      made.estimate = price === null ? (paid ? null : 0) : paid * price;
      if (take && paid) made.priceSource = take.source;
    } else if (price && priced) made.priceSource = price.source;
    // --prune-takes acts once the asset is as the build leaves it; a new generation removes every take anyway.
    made.prunable = [];
    if (options.pruneTakes && (action === 'none' || action === 'reprocess' || action === 'move'))
      made.prunableTakes = prunableTakes(entry, hashes);
    return made;
  };
  // A new generation: takes 1 to N afresh (the last generation's take files are removed).
  const fresh = freshTakes(asset, asset.kind === 'image' ? options.more : undefined);
  const freshReasons = (): string[] =>
    fresh.length
      ? [`${fresh.length} takes (${takeList(fresh)}), a paid call each`, ...droppedTakesReason(asset.id, entry)]
      : droppedTakesReason(asset.id, entry);

  if (entry?.job) {
    const stale =
      options.compareSpecs !== false && entry.job.spec !== spec
        ? ['the manifest changed since it was submitted: rebuilt after it finishes']
        : [];
    const take = entry.job.take;
    if (take === undefined)
      return item('in-flight', 'resume', [
        entry.job.jobId ? `in flight as ${entry.job.jobId}` : 'submitted; its answer was not recorded',
        ...stale,
      ]);
    // A take in flight: asked again with its key (a replay, never a second charge), then the takes
    // of its generation still missing (none when the manifest changed: rebuilt after).
    const wanted = Math.max(wantedTakes(asset), take);
    const made = new Set((entry.candidates ?? []).map((one) => one.k));
    // After a pick, `variants` makes no more takes (./takes.ts missingTakes): only the one in flight.
    const rest = stale.length || entry.picked !== undefined ? [] : takeRange(1, wanted).filter((k) => k !== take && !made.has(k));
    const takes = [...new Set([take, ...rest])].filter((k) => !made.has(k)).sort((a, b) => a - b);
    // A build that stopped between takes (capped, failed) leaves the last one made as its job.
    const where = made.has(take) ? `the last build stopped after take ${take}` : `take ${take} submitted; its answer was not recorded`;
    const then = takes.length ? `${takeList(takes)} to make` : 'every take made: the output is made from the picked one';
    return item('in-flight', 'resume', [where, then, ...stale], false, takes);
  }
  // A file already where a single-file `out` points, which assetgen did not make, is someone's
  // work: generating over it waits for --force, whatever the reason to generate. So is one where
  // an asset whose `out` moved goes now (the recorded bytes there already are its own).
  const moving = checkMove(asset, entry, hashes, lock);
  const target = asset.out.type === 'file' ? asset.out.path : undefined;
  const foreign = moving
    ? moving.foreign
    : target
      ? hashes.get(target) && !entry?.files.some((file) => file.path === target)
        ? target
        : undefined
      : entry
        ? undefined
        : // A file the lock gives to another asset is not someone's: the ownership check names that clash.
          folderOutputNames(asset).find((name) => hashes.get(name) && !lockedPaths(lock).has(name));
  // A new generation makes `fresh` takes; the same generation (asked again) makes those given.
  const generate = (status: PlanStatus, reasons: string[], sameGeneration = false, takes?: number[]): PlanItem => {
    const again = sameGeneration && !options.force;
    const making = again ? takes : fresh;
    const said = again ? reasons : [...reasons, ...freshReasons()];
    return !foreign
      ? item(status, 'generate', said, again, making)
      : options.force
        ? item(status, 'generate', [...said, `--force: replaces ${foreign}, which assetgen did not make`], false, fresh)
        : item(status, 'keep', [...reasons, `${foreign} exists and assetgen did not make it: ${leftAlone(asset.id, 'replace')}`]);
  };
  if (!entry?.spec) return generate('new', ['not built yet']);
  const specChanged = options.compareSpecs !== false && entry.spec !== spec;
  const edited = files.filter((file) => file.state === 'edited');
  const moved = !files.every((file) => inTarget(file.path, asset.id, asset.out));
  /** The spec as the lock records it: post steps, takes, a moved `out`, missing files, or up to date. */
  const sameSpec = (): PlanItem => {
    // With takes, the picked take is what post steps run on (as a kept original is), and the build
    // makes the output from it again after making any missing take.
    const takes = asset.kind === 'image' && !options.force ? missingTakes(asset, entry, options.more, options.moreOption) : undefined;
    const planned = entry.candidates ? withPickedAsOriginal(entry) : entry;
    const post = options.force ? undefined : planPost(asset, planned, files, hashes, leftAlone);
    // The picked take's file is gone: asked for again with its key (a replay where the service keeps answers).
    if (post?.action === 'generate' && entry.candidates) {
      const picked = pickedTake(entry);
      return generate(
        post.status,
        post.reasons,
        true,
        [...new Set([picked, ...takes!.make])].sort((a, b) => a - b),
      );
    }
    // Its kept original gone (a fresh clone, a CI runner), a processed output whose `out` moved goes
    // there as it is when its bytes are at hand, rather than being paid for again.
    if (post?.action === 'generate' && moved && moving && !options.force)
      return movedItem(moving, files, { item, generate: () => generate(post.status, post.reasons, true) });
    if (post?.action === 'generate') return generate(post.status, post.reasons, true);
    if (takes?.make.length && post?.action !== 'keep')
      return item(post?.status ?? 'changed', 'generate', [...(post?.reasons.slice(0, -1) ?? []), ...takes.reasons], true, takes.make);
    if (post && foreign && post.action === 'reprocess')
      return item(post.status, 'keep', [
        ...post.reasons.slice(0, -1),
        `${foreign} exists and assetgen did not make it: ${leftAlone(asset.id, 'replace')}`,
      ]);
    if (post) return { ...item(post.status, post.action, post.reasons), ...(post.source ? { source: post.source } : {}) };
    const missing = files.filter((file) => file.state === 'missing');
    // An output of a take moved or gone: made again from the picked take, with no paid call.
    const source = entry.candidates && (moved || missing.length) ? takeOf(entry, pickedTake(entry)) : undefined;
    if (source && takeState(source, hashes) === 'ok') {
      const what = moved ? 'out changed' : `${missing.map((file) => file.path).join(', ')} missing`;
      return {
        ...item(moved ? 'changed' : 'missing', 'reprocess', [what, `made again from ${source.file}, no paid call`]),
        source: source.file,
      };
    }
    const again = entry.candidates ? [pickedTake(entry)] : undefined;
    if (moved && moving && !options.force)
      return movedItem(moving, files, { item, generate: (reasons) => generate('changed', reasons, true, again) });
    if (moved) return generate('changed', ['out changed'], true, again);
    if (missing.length) return generate('missing', [`${missing.map((file) => file.path).join(', ')} missing`], true, again);
    // A deliberate regeneration: a new generation, so a new key and a new asset (and a new charge).
    if (options.force) return item('up-to-date', 'generate', ['--force: regenerated', ...freshReasons()], false, fresh);
    const prune = options.pruneTakes ? prunableTakes(entry, hashes) : [];
    if (prune.length) return item('up-to-date', 'none', [`--prune-takes: ${prune.join(', ')} deleted (not picked)`]);
    return item('up-to-date', 'none', entry.candidates && entry.picked === undefined ? [unpickedNote(asset.id, options.pickCommand)] : []);
  };
  // `out` moved, the spec did not: an output edited by hand stays where it is (never replaced, never
  // deleted), and the asset goes to its new `out` from the bytes the lock records where they are at
  // hand (a kept original, the picked take, an output already there), else is asked for again.
  if (edited.length && moved && !specChanged && !options.force) return leftWhereItIs(sameSpec(), edited);
  if (edited.length) {
    const what = `${edited.map((file) => file.path).join(', ')} edited since assetgen wrote it`;
    const also = specChanged ? ['the spec changed too'] : [];
    // More takes asked for an asset left alone: said, never dropped without a word.
    const noTakes =
      asset.kind === 'image' && options.more
        ? [`${options.moreOption ?? `--more ${options.more}`}: no takes made while it is left alone`]
        : [];
    return options.force
      ? item('edited', 'generate', [what, ...also, '--force: regenerated', ...freshReasons()], false, fresh)
      : item('edited', 'keep', [what, ...also, leftAlone(asset.id, 'regenerate'), ...noTakes]);
  }
  if (specChanged) return generate('changed', [describeChange(entry, asset, options.service)]);
  return sameSpec();
}

/**
 * An asset whose `out` moved, its spec unchanged and no kept original to make it from: `move` when
 * the bytes the lock records are at hand (each output unchanged where it was, or already at its new
 * path), 0 credits — unless a file assetgen did not make is where it goes (`keep`, as for a new
 * asset). Otherwise asked for again with the same key (`generate`, a paid call), the reasons saying why.
 */
function movedItem(
  moving: MoveCheck,
  files: readonly FileCheck[],
  make: {
    item: (status: PlanStatus, action: PlanAction, reasons: string[]) => PlanItem;
    generate: (reasons: string[]) => PlanItem;
  },
): PlanItem {
  const some = (paths: string[]): string => listIds(paths, undefined, 3);
  const from = `out moved (from ${some(moving.moves.map((move) => move.from))})`;
  const notAtHand = moving.ready
    ? []
    : files
        .filter((file) => file.state !== 'ok')
        .map((file) =>
          file.state === 'missing' ? `${file.path} missing` : `${file.path} edited since assetgen wrote it: left where it is`,
        );
  // In the generate closure's own words, a file in the way: left alone (--force, which plans no move, replaces it).
  if (moving.foreign) return make.generate([from, ...notAtHand]);
  if (!moving.ready)
    return make.generate([
      from,
      ...notAtHand,
      'the bytes assetgen.lock records are not at hand (no kept original): generated again, asked with the same key (a paid call)',
    ]);
  const to = some(moving.moves.map((move) => move.to));
  return { ...make.item('changed', 'move', [from, `moved to ${to} (the bytes assetgen.lock records), no paid call`]), moves: moving.moves };
}

/**
 * The plan of an asset whose `out` moved while outputs of it were edited by hand: said in its
 * reasons (before what the build does) that each edited file stays where it is, never replaced nor
 * deleted, unless the reasons name it already.
 */
function leftWhereItIs(planned: PlanItem, edited: readonly FileCheck[]): PlanItem {
  const notes = edited
    .filter((file) => !planned.reasons.some((reason) => reason.includes(`${file.path} edited`)))
    .map((file) => `${file.path} edited since assetgen wrote it: left where it is`);
  if (!notes.length) return planned;
  const reasons = [...planned.reasons];
  reasons.splice(Math.max(0, reasons.length - 1), 0, ...notes);
  return { ...planned, reasons };
}

/** --prune-takes: the take files of an entry that are not picked and that nobody changed (prune keeps an edited one). */
function prunableTakes(entry: LockEntry | undefined, hashes: FileHashes): string[] {
  if (!entry?.candidates || entry.job) return [];
  const picked = pickedTake(entry);
  return entry.candidates.filter((take) => take.k !== picked && takeState(take, hashes) === 'ok').map((take) => take.file);
}

function planRemoved(id: string, entry: LockEntry, hashes: FileHashes, options: PlanOptions): PlanItem {
  const files = checkFiles(entry, hashes);
  const original = entry.original && checkFiles({ ...entry, files: [entry.original] }, hashes)[0];
  const prunable = entry.job
    ? []
    : [...files, ...(original ? [original] : [])].filter((file) => file.state === 'ok').map((file) => file.path);
  const kept = files.filter((file) => file.state === 'edited').map((file) => `${file.path} (edited)`);
  const reasons = ['gone from the manifest'];
  if (entry.job) reasons.push(`a job is in flight${entry.job.jobId ? ` (${entry.job.jobId})` : ''}: prune leaves it`);
  if (kept.length) reasons.push(`prune keeps ${kept.join(', ')}`);
  return {
    id,
    status: 'removed',
    action: options.prune && !entry.job ? 'prune' : 'keep',
    kind: entry.kind,
    spec: entry.spec ?? entry.job?.spec ?? '',
    ...(entry.agent !== undefined ? { agent: entry.agent } : {}),
    ...(entry.workflow !== undefined ? { workflow: entry.workflow } : {}),
    reasons,
    files,
    ...(entry.job ? { job: entry.job } : {}),
    estimate: 0,
    prunable,
  };
}

/** A paid call recorded by its key only: the service may or may not have carried it out. */
const unanswered = (job: LockJob | undefined): boolean => Boolean(job && !job.jobId && job.credits === undefined);

export function checkFiles(entry: LockEntry | undefined, hashes: FileHashes): FileCheck[] {
  return (entry?.files ?? []).map((file) => {
    const found = hashes.get(file.path);
    return { path: file.path, state: !found ? 'missing' : found.sha256 === file.sha256 && found.size === file.size ? 'ok' : 'edited' };
  });
}

/**
 * Why a spec hash differs, naming what changed: the kind, agent or workflow, the service (which
 * the lock records whole) and the parts the lock fingerprints (hash.ts specParts). A lock written
 * before parts were recorded can only say which parts might have.
 */
function describeChange(entry: LockEntry, asset: ManifestAsset, service: string): string {
  if (entry.kind !== asset.kind) return `now ${asset.kind === 'image' ? 'an image' : `a ${asset.kind}`} (was ${entry.kind})`;
  if (asset.kind === 'workflow' && entry.workflow !== asset.workflow) return 'workflow changed';
  if (asset.kind !== 'workflow' && entry.agent !== asset.agent) return 'agent changed';
  const changed = entry.service !== undefined && entry.service !== service ? [`service: ${entry.service || '(none)'} → ${service}`] : [];
  if (!entry.specParts)
    return changed.length ? `spec changed (${changed[0]}, maybe more)` : 'spec changed (prompt, overrides, options or service)';
  const now = specParts(asset);
  for (const name of [...new Set([...Object.keys(now), ...Object.keys(entry.specParts)])].sort())
    if (now[name] !== entry.specParts[name]) changed.push(SPEC_PART_NAMES[name] ?? name);
  // Nothing recorded differs: what changed is SPEC_VERSION, how assetgen reads a spec.
  return `spec changed (${changed.length ? changed.join(', ') : "assetgen's spec format"})`;
}

/** How the reasons name each of a spec's parts (the manifest's own words, where it has a field). */
const SPEC_PART_NAMES: Record<string, string> = {
  prompt: 'prompt',
  set: 'set (workflow overrides)',
  duration: 'duration',
  aspectRatio: 'aspectRatio',
};
