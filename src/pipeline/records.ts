// The records of the pipeline: what a manifest asks for (manifest.ts reads it), what the lock
// holds (lock.ts reads and writes it) and what a plan decides (plan.ts). Declarations only (and the
// lock's format version), in a file of their own: the files that read, plan and write import these,
// not each other (test/unit/source-rules.test.ts keeps src/ free of import circles).
import type { Placement } from '../imaging/atlas.js';
import type { PostStep } from '../imaging/post-steps.js';
import type { Position } from './errors.js';

// ── The manifest ──────────────────────────────────────────────────────────────────────────────────

export type AssetKind = 'image' | 'workflow' | 'video' | 'sheet';

/**
 * Where an asset's outputs go, relative to the project root with forward slashes: one file
 * (`assets/icons/sword.png`), or a folder (`assets/fx/`) where each file is named after the id.
 */
export type OutputTarget = { type: 'file'; path: string } | { type: 'folder'; dir: string };

export interface ManifestAsset {
  id: string;
  kind: AssetKind;
  /** Image and video assets. */
  prompt?: string;
  /** Image assets always have one (their own or defaults.agent); a video may leave it to the service. */
  agent?: string;
  workflow?: string;
  /** Workflow node prompt overrides. */
  set?: Record<string, string>;
  /** Video options. */
  duration?: number;
  aspectRatio?: string;
  /** Image assets: the steps run on the generated original (its own list, else defaults.post); absent for none. */
  post?: PostStep[];
  /**
   * Image assets: how many takes to keep (its own, else defaults.variants; absent for one). Each take
   * is its own paid call; not part of the spec, so raising it pays only for the new takes.
   */
  variants?: number;
  /** Sheet assets: what to pack (pipeline/sheet.ts); `out` is then a .png file. */
  sheet?: SheetSpec;
  /** `tile: true`: the image repeats edge to edge, so `assetgen check` measures its seam (./checks.ts). */
  tile?: true;
  /** `checks:` (its own rules over defaults.checks, rule by rule): what `assetgen check` holds its outputs to. */
  checks?: CheckRules;
  /** An asset expanded from a `matrix` entry: that entry's id pattern (`potion-${color}`), which names its group. */
  matrix?: string;
  out: OutputTarget;
  /** Where the asset's entry starts in the manifest, for errors found later. */
  position: Position;
}

export interface Manifest {
  /** Absolute path of the manifest file. */
  file: string;
  /** The project root: the manifest's directory. Outputs and the lock live under it. */
  root: string;
  assets: ManifestAsset[];
  /** The credits a build of this manifest may spend unless --max-credits says otherwise. */
  budget?: number;
  /** `prices`: the credits one paid call of each agent or workflow costs, as the manifest declares them. */
  prices?: DeclaredPrices;
  /** Where a build writes each output's provenance sidecar (sidecars.ts); absent: none is written. */
  provenance?: SidecarPlace;
}

/**
 * Where provenance sidecars go: mirrored under a folder of their own (`dir/<output path>.assetgen.json`,
 * outside the game's asset folders, so they never ship by accident; the default), or beside each output.
 */
export type SidecarPlace = { sidecars: 'folder'; dir: string } | { sidecars: 'beside' };

/** Credits per paid call, by agent (an image or a take) and by workflow (a run's submission). */
export interface DeclaredPrices {
  agents: Record<string, number>;
  workflows: Record<string, number>;
}

/**
 * Where a price comes from (./prices.ts), most trusted first: the project's lock, this machine's
 * store, the manifest's `prices`; `published`: a video's, from the service document.
 */
export type PriceSource = 'observed' | 'learned' | 'declared' | 'published';

/** One price a plan uses: of an image agent, a workflow, or the video job; null credits when none is known. */
export interface PlanPrice {
  kind: 'image' | 'workflow' | 'video';
  /** The agent (images) or workflow; absent for videos (one price for every video job). */
  name?: string;
  credits: number | null;
  /** Absent when the price is unknown. */
  source?: PriceSource;
  /** The plan's assets that pay it (generate, or resume a call never answered). */
  assets: number;
  /** The first of them: building it alone, without a cap, makes the price known. */
  firstAsset: string;
}

/** A sheet's options as the manifest gives them (the packer's defaults fill in the rest). */
export interface SheetSpec {
  /** Asset ids or globs over ids, in the manifest's order. */
  from: string[];
  padding?: number;
  extrude?: number;
  maxSize?: number;
  trim?: boolean;
  /**
   * Named animations: frame names (ids or globs over the sheet's frame names; a list in order), each
   * glob's frames by frame number. Written into the data file as `animations` (pipeline/sheet.ts).
   */
  animations?: Record<string, string | string[]>;
}

/**
 * The rules of `checks:` (docs/check.md): each turns one figure `assetgen check` measures on every
 * output image into a pass or a failure. Fractions are 0–1, seams 0–255, outlier distances bits of 64.
 */
export interface CheckRules {
  /** Some pixel less than fully opaque (required), or none (forbidden). */
  alpha?: 'required' | 'forbidden';
  /** The opaque bounding box's share of the canvas. */
  fill?: { min?: number; max?: number };
  /** Distinct RGBA values. */
  colors?: { max: number };
  /** A `tile: true` image's seam score. */
  seam?: { max: number };
  /** The perceptual-hash distance to the other members of its matrix or sheet. */
  outlier?: { max: number };
}

// ── The lock ──────────────────────────────────────────────────────────────────────────────────────

export const LOCK_VERSION = 1;

export interface LockedFile {
  /** Relative to the project root, forward slashes. */
  path: string;
  sha256: string;
  size: number;
}

/**
 * One take of an image asset made with `variants` or `--more` (a paid call each), kept under
 * `.assetgen/candidates/<id>/<k>.<ext>` (gitignored like the kept originals). Its key is
 * idempotencyKeyFor(id, spec, generation, k), so asking again for take k replays, never pays twice.
 */
export interface LockedTake {
  /** The take's number, from 1: what `assetgen pick <id> <k>` names. */
  k: number;
  /** The take as downloaded, relative to the project root, forward slashes. */
  file: string;
  sha256: string;
  size: number;
  /** What the service said the take's paid call charged; null when not known. */
  credits: number | null;
  /** The service's id of the generation that made the take, when it gave one (a safe id: client/normalize.ts). */
  generationId?: string;
}

/**
 * Where a trimmed output's picture was in the image `trim` saw (its pixels, before any later
 * resize or extrude): place the output at (x, y) of a sourceWidth × sourceHeight canvas. The
 * atlas's own record of a frame's placement (src/imaging knows none of the pipeline).
 */
export type TrimPlacement = Placement;

/** A paid call in flight: recorded before waiting, so a crash leaves what is needed to resume. */
export interface LockJob {
  /** Spec hash of what was submitted (the manifest may change while it runs), and what makes it. */
  spec: string;
  kind: AssetKind;
  agent?: string;
  workflow?: string;
  /**
   * Sent with the paid call: asking again with it returns the same result, not a second charge.
   * Derived from the asset's id, spec and generation (see idempotencyKeyFor).
   */
  idempotencyKey: string;
  /** The asset's generation this submission makes (see LockEntry.generation). */
  generation?: number;
  /** The spec's parts as submitted (hash.ts specParts): carried to the entry when the job finishes. */
  specParts?: Record<string, string>;
  /** The take this call makes (LockedTake.k), for an asset with takes; absent for a single-take asset. */
  take?: number;
  /** Video job or workflow run id, once the service has answered (images have none). */
  jobId?: string;
  /**
   * What the service's answers said this job was charged so far (the paid call, then polls),
   * recorded with the job id: a resume adds to it. Absent while the paid call's answer, or a
   * poll's, is unknown (a poll is out): a resume then records the job's cost as not known.
   */
  credits?: number;
  submittedAt: string;
}

export interface LockEntry {
  /** What made `files` (the job, while one is in flight, says what will replace them). */
  kind: AssetKind;
  agent?: string;
  workflow?: string;
  /** Spec hash of what `files` were made from; absent until the first finish. */
  spec?: string;
  /** A fingerprint of each part of that spec (hash.ts specParts), so a changed spec says what changed. */
  specParts?: Record<string, string>;
  files: LockedFile[];
  /**
   * The whole cost of the last finish (its paid call and every poll, across resumes), as the
   * service's answers reported it; null when part of it is not known. Estimates use numbers only.
   */
  credits?: number | null;
  finishedAt?: string;
  /**
   * How many times this asset has been submitted: each new submission (first build, a changed spec,
   * --force, a retry after a failed job) is the next generation and has its own idempotency key.
   */
  generation?: number;
  /**
   * An image with `post:` steps (pipeline/post.ts): the generated file as downloaded, kept under
   * .assetgen/originals/ for re-processing, and the hash of the steps that made `files` from it.
   */
  original?: LockedFile;
  post?: string;
  /** An image whose post steps trim: where its output's picture was in the image trim saw. */
  trim?: TrimPlacement;
  /**
   * An image whose post steps failed after its paid call: `original` is the paid image, `credits`
   * its cost, `files` those of the finish before; the next plan re-processes it, with no paid call.
   */
  postFailed?: true;
  /**
   * An image whose steps `slice` and then `trim` it: for each of `files` (its frames, in order), where
   * the trimmed frame sat in its cell, so a sheet packs the frames aligned (spriteSourceSize).
   */
  trims?: TrimPlacement[];
  /** A sheet (pipeline/sheet.ts): the input files it was packed from; `spec` is then its options' hash. */
  inputs?: LockedFile[];
  /**
   * An image asset with takes (`variants`, `--more`): every take of the current generation, in
   * order of k. `files` are made from the picked one (its post steps run on its file), so planning,
   * reports, provenance and sheets read `files` as for any asset.
   */
  candidates?: LockedTake[];
  /** The take `files` come from; take 1 until someone picks (`assetgen pick <id> <k>`). */
  picked?: number;
  /**
   * Takes of this generation deleted by --prune-takes: made and paid for, so `variants` never makes
   * them again (only `--more` makes takes past the highest number made); what each cost stays counted.
   */
  prunedTakes?: { k: number; credits: number | null }[];
  job?: LockJob;
  /** The video job or workflow run id of the last finish (images have none), and the service host it ran on. */
  jobId?: string;
  service?: string;
  /**
   * An image: the service's id of the generation that made `files` (of the picked take, with takes),
   * when it gave one. Never a job to follow: an image's paid call answers with the image.
   */
  generationId?: string;
  /**
   * This lock paid nothing for the entry: it was restored from the remote cache's entry for its
   * spec, made (and paid for, `credits`) by another branch or machine (docs/build.md "Remote cache").
   * A later finish of the asset here drops it.
   */
  restoredFrom?: 'remote-cache';
}

export interface Lock {
  lockfileVersion: typeof LOCK_VERSION;
  assets: Record<string, LockEntry>;
  /**
   * A shard's `--lock-out` lock only (./lock-history.ts): per asset, the sha256 of each entry it has
   * held, once each, oldest first — the project's entry it started from (the sha256 of the empty text
   * for none), then every state its builds journalled. `lock merge` takes from a shard only what it
   * changed since that start, onto a project entry that is one of those states. Absent from the
   * project's lock, and from a shard's lock written before this field existed (merged as before).
   */
  shardHistory?: Record<string, string[]>;
}

// ── The plan ──────────────────────────────────────────────────────────────────────────────────────

export interface FileHash {
  sha256: string;
  size: number;
}

/** Hashes of the files planning looks at (see filesToHash), by project path; null for a missing file. */
export type FileHashes = ReadonlyMap<string, FileHash | null>;

export type PlanStatus = 'up-to-date' | 'new' | 'changed' | 'missing' | 'edited' | 'in-flight' | 'removed';
/**
 * none: nothing to do; generate: a paid call; resume: follow the recorded job; reprocess: run the
 * `post` steps again from `source`, no paid call (./post.ts); move: put the recorded outputs at the
 * new `out` (`moves`), the same bytes, no paid call; keep: left alone, reported; prune: delete `prunable`;
 * restore: fetch `restore.files` from the remote cache, 0 credits (./remote.ts).
 */
export type PlanAction = 'none' | 'generate' | 'resume' | 'reprocess' | 'move' | 'keep' | 'prune' | 'restore';

/**
 * One output of a `move`: the file the lock records (`from`, its bytes as the lock says, or already
 * at `to`) and where the asset's `out` puts it now (`to`, named as a save names it there).
 */
export interface FileMove {
  from: string;
  to: string;
}

export interface FileCheck {
  path: string;
  /** ok: as assetgen wrote it; edited: changed since (by hand, say); missing: gone. */
  state: 'ok' | 'edited' | 'missing';
}

export interface PlanItem {
  id: string;
  status: PlanStatus;
  action: PlanAction;
  kind: AssetKind;
  /** The spec hash to submit (the lock's, for a removed asset). */
  spec: string;
  agent?: string;
  workflow?: string;
  /** The manifest's entry; absent for a removed asset. */
  asset?: ManifestAsset;
  /** Why, in a few words each, for people. */
  reasons: string[];
  /** The files the lock records, checked against the disk. */
  files: FileCheck[];
  /** reprocess: the file the post steps run on (the kept original, or the output made before `post` was added). */
  source?: string;
  /** move: each recorded output and its new path (in the order of the lock's files); the old ones go once the new are in place. */
  moves?: FileMove[];
  /** A sheet: the ids of the assets it packs (./sheet.ts). */
  inputs?: string[];
  /** A sheet: those of its inputs whose files are the frames of a `slice` (named `<id>-<n>`, even one). */
  frameInputs?: string[];
  /** A sheet under --force: a page file in the way that assetgen did not make is replaced, not refused. */
  replaces?: boolean;
  /** The paid call in flight, to resume by its id (or its idempotency key when there is no id yet). */
  job?: LockJob;
  /**
   * The generation a `generate` submits (see LockEntry.generation): the next one, except for a
   * missing file or a moved `out` of an unchanged spec, which ask again with the same key (a service
   * that still holds the answer gives the same asset, free).
   */
  generation?: number;
  /** That generation's key was sent by an earlier build (a missing file asked for again). */
  reusesKey?: boolean;
  /**
   * An image with takes (`variants`, --more): the take numbers this action makes, a paid call each
   * (one after another), with what one take should cost (null: unknown); `estimate` is their sum.
   */
  takes?: number[];
  takePrice?: number | null;
  /** Where the price behind `estimate` comes from; absent when the action pays nothing or the price is unknown. */
  priceSource?: PriceSource;
  /**
   * Credits the action would cost: 0 unless it generates (or resumes a paid call whose answer was
   * never recorded: asking again may be its first execution); null when unknown. A video's price
   * is known; polls are not counted here (the build asks the budget before each).
   */
  estimate: number | null;
  /** For a removed asset: the files prune may delete (recorded by assetgen and unchanged). */
  prunable: string[];
  /**
   * With --prune-takes: the asset's take files that are not picked and unchanged (./takes.ts). Its
   * own field: `prunable` of a removed asset is deleted only with --prune.
   */
  prunableTakes?: string[];
  /** restore: the files to fetch from the remote cache by their sha256, and a spec entry's lock entry (./remote.ts). */
  restore?: RestoreSource;
}

/** What a `restore` item fetches (./remote.ts): the files by their sha256, and with `entry` the lock entry it records. */
export interface RestoreSource {
  files: LockedFile[];
  /** From a spec entry: recorded in the lock as this asset's finish. Absent: the lock's own entry stands. */
  entry?: LockEntry;
}

export interface Plan {
  service: string;
  /** In manifest order, then removed assets in id order. */
  items: PlanItem[];
  /**
   * The credits the `generate` actions would cost, as far as known; `unknown` lists the rest;
   * `calls`: the paid calls they make (each take of an asset is one).
   */
  estimate: { credits: number; unknown: string[]; calls?: number };
  /** The prices the estimate uses, each with its source, in the order the plan first meets them. */
  prices: PlanPrice[];
  /** Selectors (ids, globs) that matched no asset. */
  unmatched: string[];
}
