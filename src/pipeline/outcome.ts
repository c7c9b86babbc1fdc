// How each asset's part of a build ended — one closed union, the one record of it (the items of
// `assetgen build --json`, an MCP build's structuredContent, the gallery's cards) and the totals.
// The exit code of a build is derived from these outcomes, never from message text.
import type { CapRefusal } from './budget.js';
import type { BuildFailure } from './errors.js';
import type { PlanStatus, TrimPlacement } from './records.js';

/** Every outcome, the one source of the union (the MCP build tool's outputSchema is derived from it too). */
export const ASSET_OUTCOMES = [
  'built',
  'resumed',
  'unchanged',
  'kept',
  'failed',
  'interrupted',
  'skipped',
  'capped',
  'pruned',
  // Its files fetched from the remote cache, 0 credits (docs/build.md "Remote cache").
  'restored',
] as const;

export type AssetOutcome = (typeof ASSET_OUTCOMES)[number];

/** Outcomes of the assets a build worked on (the others were unchanged, or kept because edited by hand). */
export type WorkedOutcome = Exclude<AssetOutcome, 'unchanged' | 'kept'>;

/** A saved file's format and pixel size (null where its header does not say). */
export interface FileMedia {
  path: string;
  format: string | null;
  width: number | null;
  height: number | null;
}

/** One asset's part of a build. */
export interface AssetResult {
  id: string;
  status: PlanStatus;
  outcome: AssetOutcome;
  files: string[];
  /** Files on disk at the end (built, resumed, unchanged, kept): each one's format and pixel size. */
  media?: FileMedia[];
  /** What this build was charged for it (net of refunds), as the service's answers said. */
  credits: number;
  /** Built or resumed: the asset's whole cost as recorded in the lock (null: part of it unknown). */
  cost?: number | null;
  /** Capped: why the budget held it back. */
  cap?: CapRefusal['kind'];
  /** Why it failed, was skipped or capped, for people. */
  reason?: string;
  /** Failed: the error's code, and whether building again as it is fails the same way (errors.ts BuildFailure). */
  error?: BuildFailure;
  /** Paid work left unfinished (failed, interrupted, capped in flight): the command that picks it up. */
  resume?: string;
  /** Why the plan chose what it did for it. */
  why?: string[];
  /**
   * An image with takes (docs/build.md "Takes"): each take kept (its number, file and what it cost),
   * and the one the output is made from; `unpicked` says the build used take 1 because nobody picked.
   */
  takes?: { k: number; file: string; credits: number | null }[];
  /** A trimmed image as assetgen wrote it (built, resumed, unchanged, restored): where its picture was (the lock's `trim`). */
  trim?: TrimPlacement;
  /** A sliced and trimmed image as assetgen wrote it: where each frame sat in its cell, in the order of `files` (the lock's `trims`). */
  trims?: TrimPlacement[];
  picked?: number;
  unpicked?: string;
  /** Made, with something to say of it: a post step's warning (a `key` that left the image almost opaque: imaging/edges.ts keyWarning). */
  warnings?: string[];
}

export type BuildTotals = Record<Exclude<AssetOutcome, never>, number> & { assets: number; credits: number };

export function totalsOf(items: readonly AssetResult[]): BuildTotals {
  const totals = { assets: items.length } as BuildTotals;
  for (const outcome of ASSET_OUTCOMES) totals[outcome] = 0;
  for (const item of items) totals[item.outcome] += 1;
  totals.credits = items.reduce((sum, item) => sum + item.credits, 0);
  return totals;
}
