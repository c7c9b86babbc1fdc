// The records of `assetgen build` (this folder): its options, the flags a paid run reads, its
// results (the --json documents) and what the pool and each asset share. Declarations only, in a
// file of their own: build.ts, run.ts, pool.ts and the asset steps import these, not each other
// (test/unit/source-rules.test.ts keeps src/ free of import circles).
import type { CommandContext } from '../../cli/context.js';
import type { CreditsReport } from '../../cli/credits.js';
import type { AssetgenError, AuthenticationError, InsufficientCreditsError } from '../../client/errors.js';
import type { AssetgenClient } from '../../client/types.js';
import type { CapRefusal, CreditBudget } from '../../pipeline/budget.js';
import type { AssetResult, BuildTotals, WorkedOutcome } from '../../pipeline/outcome.js';
import type { OutputClaims } from '../../pipeline/owners.js';
import type { Plan, PlanItem, PlanStatus, SidecarPlace } from '../../pipeline/records.js';
import type { Shard } from '../../pipeline/shard.js';
import type { SidecarsWritten } from '../../pipeline/sidecars.js';
import type { LockWriter } from '../../pipeline/writer.js';
import type { BuildPrices } from './build-prices.js';
import type { CheckDocument } from './check.js';

/** The flags of `assetgen build` (program.cts). */
export interface BuildOptions {
  dryRun?: boolean;
  file?: string;
  shard?: string;
  force?: boolean;
  prune?: boolean;
  concurrency: number;
  /** A cap, or 'none' (no cap, whatever the manifest's budget says). */
  maxCredits?: number | 'none';
  /** With --dry-run: the plan as Markdown. */
  format?: 'markdown';
  failFast?: boolean;
  yes?: boolean;
  /** A shard's own lock file (merged later with `assetgen lock merge`). */
  lockOut?: string;
  /** The HTML gallery to write (report.ts), relative to the cwd. */
  report?: string;
  /** K more takes of each selected image asset (pipeline/takes.ts). */
  more?: number;
  /** Delete the selected assets' take files that are not picked. */
  pruneTakes?: boolean;
  /** The shared remote cache's URL (else ASSETGEN_REMOTE_CACHE_URL), and restore-only (./remote.ts). */
  remoteCache?: string;
  remoteCacheReadOnly?: boolean;
  /** Then measure the outputs and hold them to the manifest's `checks:` (./check.ts); exit 9 when one is broken. */
  check?: boolean;
}

/** What a build computed: its dry run's plan, or every asset's outcome of a build that ran. */
export type BuildResult = DryRunResult | BuildRun;

/** A build's --json document (and the MCP build tool's structuredContent): the result, less what only its exit reads. */
export type BuildDocument = DryRunResult | BuildRunResult;

/** The plan of `build --dry-run` (the --json document; the plan alone, nothing sent). */
export interface DryRunResult {
  manifest: string;
  lock: string;
  service: string;
  dryRun: true;
  shard?: Shard;
  report?: string;
  items: (Omit<PlanItem, 'asset'> & { out?: string })[];
  counts: Partial<Record<PlanStatus, number>>;
  estimate: Plan['estimate'];
  /** The prices the estimate uses, each with its source (observed, learned, declared, published); unknown ones with null. */
  prices: Plan['prices'];
  budget?: BudgetCheck;
  /** Sheets the build would leave stale (not packed), each with why; absent when none. */
  staleSheets?: StaleSheet[];
  mock?: true;
}

/**
 * A sheet planned and not packed: an input not built (in the lock, or in this build), a file in the
 * way, an edited atlas. Its atlas is not what its inputs would pack now.
 */
export interface StaleSheet {
  id: string;
  reason: string;
}

/** Would the real build hold something back? Known cost over the cap, or unknown costs under one. */
export interface BudgetCheck {
  max: number;
  /** The known part of the estimate passes the cap. */
  over: boolean;
  /** Assets to generate whose price is unknown: a capped build does not start them. */
  unknown: string[];
  /** Where the cap comes from: the manifest's `budget`, or `--max-credits` (MCP: `max_credits`). */
  from: 'budget' | 'max-credits';
  /** The cap as the reader set it: `` `budget: 400` in assetgen.yaml ``, `--max-credits 400`. */
  name: string;
  /** With unknown prices: both ways to make them known (`prices:`, or one build of one asset of each without the cap). */
  remedy?: string;
}

/** The flags of `assetgen build` a run reads; `maxCredits` is the cap in force (flag or manifest budget). */
export type RunFlags = Pick<BuildOptions, 'concurrency' | 'failFast' | 'yes' | 'file' | 'lockOut' | 'report' | 'check'> & {
  maxCredits?: number;
  /** The cap as the reader set it (cap.ts capName), for refusals; with `maxCredits`. */
  capName?: string;
  /** Under a cap, what to do about the plan's unknown prices (cap.ts unknownPriceRemedy). */
  priceRemedy?: string;
  /** The manifest's `provenance`: where each output's `<file>.assetgen.json` goes (none when absent). */
  provenance?: SidecarPlace;
};

/**
 * A build that ran, as its command holds it: the --json document, and the error of a gallery that
 * could not be written (its own exit code), raised once the build's outcome is shown (run-result.ts).
 */
export type BuildRun = BuildRunResult & {
  galleryError?: AssetgenError;
  /** The service's first refusal of the credentials or the credits: no asset was started after it (exit 4 or 5). */
  refused?: ServiceRefusal;
  /** The cap as the reader set it, and what to do about unknown prices: for the capped exit's words. */
  capName?: string;
  priceRemedy?: string;
};

/** The document of a build that ran (`assetgen build --json`, the MCP build tool's structuredContent). */
export interface BuildRunResult {
  manifest: string;
  lock: string;
  service: string;
  items: AssetResult[];
  totals: BuildTotals;
  /** The cap this build ran under, null for none. */
  maxCredits: number | null;
  report?: string;
  reportError?: string;
  /** With `provenance:`: where the sidecars go, those this build wrote, how many were current already, any it could not write. */
  sidecars?: SidecarsWritten;
  /** Sheets this build left stale (not packed), each with why; absent when none. */
  staleSheets?: StaleSheet[];
  /** With --check: the figures of every output image and the rules they break (`assetgen check --json`). */
  checks?: CheckDocument;
  /**
   * What planning's `workflows list` was charged (made with the API key, for workflow node ids the
   * lock does not know): in `credits` and within the cap, but no asset's. Absent when nothing.
   */
  planningCredits?: number;
  credits: CreditsReport;
  mock?: true;
}

/**
 * An answer that no later call of the build would get past: the credentials refused (401/403), or
 * too few credits (402). After the first, the build starts no other asset (asset.ts).
 */
export type ServiceRefusal = AuthenticationError | InsufficientCreditsError;

/** How an asset the build worked on ended: part of the one closed union (src/pipeline/outcome.ts). */
export type Outcome = WorkedOutcome;

/** One asset's part of the build as the pool sees it: the record of outcome.ts, with the budget's refusal itself. */
export type ItemResult = Pick<AssetResult, 'id' | 'files' | 'credits' | 'cost' | 'reason' | 'resume' | 'warnings' | 'error'> & {
  outcome: Outcome;
  /** Capped: why the budget held it back (before it started, or before its next charged call). */
  refusal?: CapRefusal;
};

export interface AssetRun {
  ctx: CommandContext;
  client: AssetgenClient;
  root: string;
  /** Which asset each output file belongs to (a save never replaces another asset's file). */
  claims: OutputClaims;
  writer: LockWriter;
  budget: CreditBudget;
  /** Aborted a grace period after the build's signal: a call in flight at Ctrl-C gets its answer (and its charge is known). */
  requestSignal: AbortSignal;
  resumeCommand: (id: string) => string;
  /** What this build learns of prices: remembered on this machine, checked against declared ones under a cap. */
  prices: BuildPrices;
  /** The cap as the reader set it (`--max-credits 5`, `` `budget: 5` in assetgen.yaml ``), for refusals. */
  capName: string;
  /**
   * The build's polls are charged (AssetgenClient.pollsCharged: made with the API key). When not
   * (a session's polls), a poll's charge is known (none), answered or not.
   */
  pollsCharged: boolean;
}
