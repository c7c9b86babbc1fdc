// `assetgen build` without --dry-run: confirm a plan with videos, run it (pool.ts); its result is
// every asset's outcome and the totals (the --json document), presented by run-result.ts: people
// get one summary line, and the exit code comes from the outcomes.
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { AbortedError } from '../../client/errors.js';
import { UsageError } from '../../cli/errors.js';
import { confirmOrCancel } from '../../cli/prompt.js';
import { withCredits } from '../../cli/charged.js';
import { totalsOf, type AssetOutcome, type AssetResult } from '../../pipeline/outcome.js';
import type { LockEntry, Manifest, Plan } from '../../pipeline/records.js';
import { pickedTake, unpickedNote } from '../../pipeline/takes.js';
import type { LockWriter } from '../../pipeline/writer.js';
import { VIDEO_JOB_COST } from '../../api/endpoints.js';
import { mediaInfo } from '../../files/media-info.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import type { BuildRun, ItemResult, RunFlags } from './records.js';
import { runPlan } from './pool.js';
import { buildCommandLine } from './cap.js';
import { listIds } from '../../pipeline/id-list.js';
import { staleSheets } from './plan-summary.js';
import { writeBuildReport } from './gallery.js';
import { writeBuildSidecars } from '../../pipeline/sidecars.js';

export async function runBuild(
  ctx: CommandContext,
  plan: Plan,
  root: string,
  writer: LockWriter,
  flags: RunFlags,
  where: { file: string; lockFile: string; service: string; manifest: Manifest },
  /** Assets restored from the remote cache before the plan ran (./remote.ts): their outcome unless the pool worked on them too. */
  restored: readonly ItemResult[] = [],
  /** The videos build.ts had confirmed before planning's charged calls: asked again only for others (a restore that failed). */
  confirmed: ReadonlySet<string> = new Set(),
): Promise<BuildRun> {
  await confirmVideos(ctx, plan, flags.yes, confirmed);
  const results = await runPlan(ctx, plan.items, root, writer, {
    concurrency: flags.concurrency,
    maxCredits: flags.maxCredits,
    failFast: flags.failFast,
    resumeCommand: (id) => buildCommandLine(ctx, [id], flags),
    capName: flags.capName ?? ctx.frontEnd.option('maxCredits', flags.maxCredits ?? 'none'),
    service: plan.service,
  });
  const byId = new Map([...restored, ...results].map((result) => [result.id, result]));
  // Each asset's entry read on its own, not a copy of the whole lock (a few MiB in a large project).
  const items = plan.items.map((item): AssetResult => {
    const entry = writer.entry(item.id);
    const result = byId.get(item.id);
    const outcome = result?.outcome ?? (item.action === 'keep' ? 'kept' : 'unchanged');
    const files = result?.files ?? item.files.map((file) => file.path);
    return {
      id: item.id,
      status: item.status,
      outcome,
      files,
      // Each file's format and pixel size, as for every command that saves (cli/report.ts).
      ...(ON_DISK.has(outcome) ? { media: files.map((file) => ({ ...mediaInfo(path.resolve(root, file)), path: file })) } : {}),
      credits: result?.credits ?? 0,
      ...(result?.cost !== undefined ? { cost: result.cost } : {}),
      ...(result?.refusal ? { cap: result.refusal.kind } : {}),
      ...(result?.reason ? { reason: result.reason } : {}),
      ...(result?.error ? { error: result.error } : {}),
      ...(result?.resume ? { resume: result.resume } : {}),
      ...(result?.warnings?.length ? { warnings: result.warnings } : {}),
      ...(item.reasons.length ? { why: item.reasons } : {}),
      ...takesOf(item.id, entry, ctx.frontEnd.pick),
      ...(AS_WRITTEN.has(outcome) && entry?.trim ? { trim: entry.trim } : {}),
      ...(AS_WRITTEN.has(outcome) && entry?.trims ? { trims: entry.trims } : {}),
    };
  });
  const stale = staleSheets(plan.items, new Map(items.map((item) => [item.id, item])));
  // Sidecars from the lock as the pool left it: never the images' bytes (sidecars.ts).
  const sidecars = flags.provenance ? await writeBuildSidecars(root, plan, items, writer.lock, flags.provenance) : undefined;
  for (const failure of sidecars?.failed ?? [])
    ctx.out.warn(`Could not write ${sanitizeLine(failure.path)}: ${sanitizeLine(failure.reason)}`);
  // --check: the outputs of the assets this build covered (its selection, its shard) as it left
  // them, measured (no service call); not after Ctrl-C.
  const covered = new Set(plan.items.filter((item) => item.asset).map((item) => item.id));
  const checks =
    flags.check && !ctx.signal.aborted
      ? await (await import('./check.js')).measureProject(
          where.manifest,
          writer.lock,
          { manifest: where.file, lock: where.lockFile },
          covered,
        )
      : undefined;
  // The gallery is written whatever the outcome; its own failure never hides the build's (gallery.ts).
  const gallery = flags.report
    ? await writeBuildReport(ctx, flags.report, { plan, items, lock: writer.lock, file: where.file, service: where.service, checks })
    : undefined;
  const result = withCredits(ctx, {
    manifest: where.file,
    lock: where.lockFile,
    service: where.service,
    items,
    totals: totalsOf(items),
    maxCredits: flags.maxCredits ?? null,
    ...(sidecars ? { sidecars } : {}),
    ...(stale.length ? { staleSheets: stale } : {}),
    ...(checks ? { checks } : {}),
    ...gallery?.document,
  });
  const words = { ...(flags.capName ? { capName: flags.capName } : {}), ...(flags.priceRemedy ? { priceRemedy: flags.priceRemedy } : {}) };
  return { ...result, ...words, ...(gallery?.error ? { galleryError: gallery.error } : {}) };
}

/** An asset's takes as its lock entry now lists them, and which one its output comes from (until picked, take 1: said). */
function takesOf(
  id: string,
  entry: LockEntry | undefined,
  pick: (id: string) => string,
): Pick<AssetResult, 'takes' | 'picked' | 'unpicked'> {
  if (!entry?.candidates?.length || entry.job) return {};
  const takes = entry.candidates.map(({ k, file, credits }) => ({ k, file, credits }));
  const unpicked = entry.picked === undefined && takes.length > 1 ? { unpicked: unpickedNote(id, pick) } : {};
  return { takes, picked: pickedTake(entry), ...unpicked };
}

/** Outcomes whose files are on disk once the build ends. */
const ON_DISK = new Set<AssetOutcome>(['built', 'resumed', 'unchanged', 'kept', 'restored']);
/** Those whose files are the lock's (not edited by hand since): what the lock says of them holds. */
const AS_WRITTEN = new Set<AssetOutcome>(['built', 'resumed', 'unchanged', 'restored']);

/**
 * A plan with videos spends VIDEO_JOB_COST credits each: it needs --yes, or a yes on a terminal.
 * build.ts asks before anything of the build is charged (planning's `workflows list` included), so a
 * refusal or a "no" costs nothing; asked again here only for videos not confirmed then (`confirmed`:
 * one the remote cache was to restore and did not), when something may have been charged already —
 * then a "no" does not say "nothing was charged": the credits line says what was.
 */
export async function confirmVideos(
  ctx: CommandContext,
  plan: Pick<Plan, 'items'>,
  yes: boolean | undefined,
  confirmed: ReadonlySet<string> = new Set(),
): Promise<void> {
  const videos = plan.items.filter((item) => item.action === 'generate' && item.kind === 'video' && !confirmed.has(item.id));
  if (!videos.length || yes) return;
  const cost = `${videos.length} video job${videos.length === 1 ? '' : 's'} (${videos.length * VIDEO_JOB_COST} credits, refunded if a job fails): ${listIds(videos.map((item) => item.id))}`;
  if (!ctx.interactive)
    throw new UsageError(
      `This build submits ${cost}: pass ${ctx.frontEnd.option('yes')} to confirm.`,
      `${ctx.frontEnd.againWith('dryRun')} to see the whole plan first.`,
    );
  const { charged, unknownCharges } = ctx.credits.report;
  const spent = charged > 0 || (unknownCharges ?? 0) > 0;
  try {
    await confirmOrCancel(ctx, `This build submits ${cost}. Go ahead?`, {
      default: false,
      untouched: 'charged',
      // What was charged before the question (the credits line after this one) is not "nothing".
      cancelled: spent ? 'Cancelled: no video job was submitted.' : 'Cancelled: nothing was charged.',
    });
  } catch (error) {
    // Backing out (Ctrl-C, Escape) says "Nothing was charged." (prompt.ts): not when something was.
    if (spent && error instanceof AbortedError && !ctx.signal.aborted) throw new AbortedError(error.message, 'No video job was submitted.');
    throw error;
  }
}
