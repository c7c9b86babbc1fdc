// `assetgen build` without --dry-run: confirm a plan with videos, run it (pool.ts); its result is
// every asset's outcome and the totals (the --json document), people get one summary line, and the
// exit code comes from the outcomes.
import path from 'node:path';
import { AbortedError, AssetgenError, withHint } from '../../client/errors.js';
import type { CommandContext } from '../../cli/context.js';
import { CreditCapError, UsageError } from '../../cli/errors.js';
import { plural } from '../../cli/credits.js';
import { confirmOrCancel } from '../../cli/prompt.js';
import { renderCredits, withCredits } from '../../cli/report.js';
import { totalsOf, type AssetOutcome, type AssetResult } from '../../pipeline/outcome.js';
import { shellQuote } from '../../cli/resume.js';
import type { Plan } from '../../pipeline/records.js';
import type { LockWriter } from '../../pipeline/writer.js';
import { VIDEO_JOB_COST } from '../../api/endpoints.js';
import { mediaInfo } from '../../files/media-info.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import type { BuildRunResult, RunFlags } from './records.js';
import { runPlan } from './pool.js';
import { listIds } from './plan-summary.js';
import { writeBuildReport } from './gallery.js';
import { writeBuildSidecars } from '../../pipeline/sidecars.js';

/** A gallery that could not be written: its error (with its own exit code), raised once the build's outcome is shown. */
const galleryErrors = new WeakMap<BuildRunResult, AssetgenError>();

export async function runBuild(
  ctx: CommandContext,
  plan: Plan,
  root: string,
  writer: LockWriter,
  flags: RunFlags,
  where: { file: string; lockFile: string; service: string },
): Promise<BuildRunResult> {
  await confirmVideos(ctx, plan, flags);
  const results = await runPlan(ctx, plan.items, root, writer, {
    concurrency: flags.concurrency,
    maxCredits: flags.maxCredits,
    failFast: flags.failFast,
    resumeCommand: (id) => resumeCommand(ctx, id, flags),
  });
  const byId = new Map(results.map((result) => [result.id, result]));
  const items = plan.items.map((item): AssetResult => {
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
      ...(result?.resume ? { resume: result.resume } : {}),
      ...(item.reasons.length ? { why: item.reasons } : {}),
    };
  });
  // Sidecars from the lock as the pool left it: never the images' bytes (sidecars.ts).
  const sidecars = flags.provenance === 'sidecar' ? await writeBuildSidecars(root, plan, items, writer.lock) : undefined;
  for (const failure of sidecars?.failed ?? [])
    ctx.out.warn(`Could not write ${sanitizeLine(failure.path)}: ${sanitizeLine(failure.reason)}`);
  // The gallery is written whatever the outcome; its own failure never hides the build's (gallery.ts).
  const gallery = flags.report ? await writeBuildReport(ctx, flags.report, { plan, items, lock: writer.lock, ...where }) : undefined;
  const result = withCredits(ctx, {
    manifest: where.file,
    lock: where.lockFile,
    service: where.service,
    items,
    totals: totalsOf(items),
    maxCredits: flags.maxCredits ?? null,
    ...(sidecars ? { sidecars } : {}),
    ...gallery?.document,
  });
  if (gallery?.error) galleryErrors.set(result, gallery.error);
  return result;
}

/** People's view of a build that ran: each asset kept as it was, named with why; then one summary line. */
export function renderRun(ctx: CommandContext, result: BuildRunResult): void {
  // The pool named what it built, failed or skipped as it went; an asset left alone gets its line here.
  for (const item of result.items.filter((entry) => entry.outcome === 'kept'))
    ctx.out.info(`- ${sanitizeLine(item.id)}  kept: ${sanitizeLine((item.why ?? []).join('; '))}`);
  const totals = result.totals;
  ctx.out.info(
    `Built ${totals.built}, resumed ${totals.resumed}, unchanged ${totals.unchanged}` +
      `${totals.kept ? `, kept ${totals.kept} edited by hand` : ''}${totals.failed ? `, failed ${totals.failed}` : ''}` +
      `${totals.interrupted ? `, interrupted ${totals.interrupted} (paid, kept in the lock)` : ''}` +
      `${totals.capped ? `, held back by the cap ${totals.capped}` : ''}` +
      `${totals.skipped ? `, skipped ${totals.skipped}` : ''}${totals.pruned ? `, pruned ${totals.pruned}` : ''}; ${plural(totals.credits, 'credit')}.`,
  );
  if (result.sidecars)
    ctx.out.info(`Provenance: ${plural(result.sidecars.written.length, 'sidecar')} written, ${result.sidecars.current} already current.`);
  renderCredits(ctx, result);
}

/**
 * The exit of a build that ran, from its outcomes: interrupted 130, failed 1, capped 8; then what it
 * wrote after them and could not (the gallery, provenance sidecars), exit 1. Those are reported in
 * every case: with the build's own failure, each is printed before it (--json: in the document).
 */
export function settleRun(ctx: CommandContext, result: BuildRunResult): void {
  const failed = result.sidecars?.failed ?? [];
  const afterwards = [
    galleryErrors.get(result),
    failed.length
      ? new AssetgenError(`${plural(failed.length, 'provenance sidecar')} could not be written: ${listIds(failed.map((f) => f.path))}.`, {
          code: 'provenance_failed',
          hint: 'The build is recorded in assetgen.lock: fix what is in the way and run `assetgen build` again (writing a sidecar costs nothing).',
        })
      : undefined,
  ].filter((error): error is AssetgenError => error !== undefined);
  try {
    throwForOutcome(ctx, result);
  } catch (error) {
    if (!ctx.out.json) for (const after of afterwards) ctx.out.error(`Error: ${sanitizeLine(after.message)}`);
    throw error;
  }
  if (!afterwards.length) return;
  if (!ctx.out.json) for (const after of afterwards.slice(1)) ctx.out.error(`Error: ${sanitizeLine(after.message)}`);
  throw afterwards[0];
}

/** Outcomes whose files are on disk once the build ends. */
const ON_DISK = new Set<AssetOutcome>(['built', 'resumed', 'unchanged', 'kept']);

/** A plan with videos spends VIDEO_JOB_COST credits each: it needs --yes, or a yes on a terminal. */
async function confirmVideos(ctx: CommandContext, plan: Plan, flags: RunFlags): Promise<void> {
  const videos = plan.items.filter((item) => item.action === 'generate' && item.kind === 'video');
  if (!videos.length || flags.yes) return;
  const cost = `${videos.length} video job${videos.length === 1 ? '' : 's'} (${videos.length * VIDEO_JOB_COST} credits, refunded if a job fails): ${listIds(videos.map((item) => item.id))}`;
  if (!ctx.interactive)
    throw new UsageError(`This build submits ${cost}: pass --yes to confirm.`, 'Run with --dry-run to see the whole plan first.');
  await confirmOrCancel(ctx, `This build submits ${cost}. Go ahead?`, {
    default: false,
    untouched: 'charged',
    cancelled: 'Cancelled: nothing was charged.',
  });
}

function resumeCommand(ctx: CommandContext, id: string, flags: RunFlags): string {
  const words = ['assetgen', 'build', id];
  if (flags.file) words.push('-f', flags.file);
  if (flags.lockOut) words.push('--lock-out', flags.lockOut);
  if (ctx.globals.baseUrl) words.push('--base-url', ctx.globals.baseUrl);
  if (ctx.globals.mock) words.push('--mock');
  return words.map(shellQuote).join(' ');
}

function throwForOutcome(ctx: CommandContext, { items, maxCredits }: BuildRunResult): void {
  const failed = items.filter((item) => item.outcome === 'failed');
  const capped = items.filter((item) => item.outcome === 'capped');
  if (ctx.signal.aborted) {
    throw withHint(
      new AbortedError(),
      'Paid jobs are recorded in assetgen.lock: run the same `assetgen build` again to resume them by id, with no second charge (a call whose answer was lost is asked again with its idempotency key: free if the service honours Idempotency-Key).',
    );
  }
  if (failed.length) {
    const resumable = failed.filter((result) => result.resume);
    throw new AssetgenError(
      `${failed.length} asset${failed.length === 1 ? '' : 's'} failed: ${listIds(failed.map((result) => result.id))}.`,
      {
        code: 'build_failed',
        hint: resumable.length
          ? 'Paid work is recorded in assetgen.lock: run `assetgen build` again to resume it (no second charge for a job with an id; one without is asked again with its idempotency key, free if the service honours Idempotency-Key); the others are tried afresh.'
          : 'Run `assetgen build` again to try them afresh.',
      },
    );
  }
  if (capped.length) {
    const unknown = capped.filter((item) => item.cap === 'unknown-cost').map((item) => item.id);
    const inFlight = capped.filter((result) => result.resume).map((result) => result.id);
    const hints = [
      unknown.length
        ? `No price is recorded yet for ${listIds(unknown)}: build one asset of each agent or workflow without a cap (\`--max-credits none\`) to learn it.`
        : '',
      inFlight.length
        ? `Paid jobs stopped before their next charged poll stay in assetgen.lock (${listIds(inFlight)}): a later build resumes them.`
        : '',
      'Raise the cap, or build the rest later: what was built is recorded and will not be paid for again.',
    ];
    throw new CreditCapError(
      `Held at --max-credits ${maxCredits}: ${plural(capped.length, 'asset')} not built (${listIds(capped.map((result) => result.id))}).`,
      hints.filter(Boolean).join(' '),
    );
  }
}
