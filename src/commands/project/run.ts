// `assetgen build` without --dry-run: confirm a plan with videos, run it (pool.ts), then one
// summary on stderr and one --json document with every asset's outcome and the totals.
import path from 'node:path';
import { AbortedError, AssetgenError, withHint } from '../../client/errors.js';
import type { CommandContext } from '../../cli/context.js';
import { CreditCapError, UsageError } from '../../cli/errors.js';
import { plural } from '../../cli/credits.js';
import { confirmOrCancel } from '../../cli/prompt.js';
import { reportDocument } from '../../cli/report.js';
import { shellQuote } from '../../cli/resume.js';
import type { Plan } from '../../pipeline/plan.js';
import type { LockWriter } from '../../pipeline/writer.js';
import { VIDEO_JOB_COST } from '../../api/endpoints.js';
import { mediaInfo } from '../../files/media-info.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { runPlan, type ItemResult } from './pool.js';
import { listIds } from './plan-summary.js';
import { settleGallery, writeBuildReport } from './gallery.js';

interface BuildFlags {
  concurrency: number;
  maxCredits?: number;
  failFast?: boolean;
  yes?: boolean;
  file?: string;
  shard?: string;
  lockOut?: string;
  report?: string;
}

export async function runBuild(
  ctx: CommandContext,
  plan: Plan,
  root: string,
  writer: LockWriter,
  flags: BuildFlags,
  where: { file: string; lockFile: string; service: string },
): Promise<void> {
  await confirmVideos(ctx, plan, flags);
  const results = await runPlan(ctx, plan.items, root, writer, {
    concurrency: flags.concurrency,
    maxCredits: flags.maxCredits,
    failFast: flags.failFast,
    resumeCommand: (id) => resumeCommand(ctx, id, flags),
  });
  const byId = new Map(results.map((result) => [result.id, result]));
  const items = plan.items.map((item) => {
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
  // Each asset left alone is named with why, one line each, as the pool names what it built or skipped.
  for (const item of plan.items.filter((entry) => entry.action === 'keep'))
    ctx.out.info(`- ${sanitizeLine(item.id)}  kept: ${sanitizeLine(item.reasons.join('; '))}`);
  const count = (outcome: string): number => items.filter((item) => item.outcome === outcome).length;
  const totals = {
    assets: items.length,
    built: count('built'),
    resumed: count('resumed'),
    unchanged: count('unchanged'),
    kept: count('kept'),
    failed: count('failed'),
    skipped: count('skipped'),
    capped: count('capped'),
    interrupted: count('interrupted'),
    pruned: count('pruned'),
    credits: results.reduce((sum, result) => sum + result.credits, 0),
  };
  ctx.out.info(
    `Built ${totals.built}, resumed ${totals.resumed}, unchanged ${totals.unchanged}` +
      `${totals.kept ? `, kept ${totals.kept} edited by hand` : ''}${totals.failed ? `, failed ${totals.failed}` : ''}` +
      `${totals.interrupted ? `, interrupted ${totals.interrupted} (paid, kept in the lock)` : ''}` +
      `${totals.capped ? `, held back by the cap ${totals.capped}` : ''}` +
      `${totals.skipped ? `, skipped ${totals.skipped}` : ''}${totals.pruned ? `, pruned ${totals.pruned}` : ''}; ${plural(totals.credits, 'credit')}.`,
  );
  // The gallery is written whatever the outcome; its own failure never hides the build's (report.ts).
  const gallery = flags.report ? await writeBuildReport(ctx, flags.report, { plan, items, lock: writer.lock, ...where }) : undefined;
  reportDocument(ctx, { manifest: where.file, lock: where.lockFile, service: where.service, items, totals, ...gallery?.document });
  settleGallery(ctx, gallery, () => throwForOutcome(ctx, results, flags));
}

/** Outcomes whose files are on disk once the build ends. */
const ON_DISK = new Set(['built', 'resumed', 'unchanged', 'kept']);

/** A plan with videos spends VIDEO_JOB_COST credits each: it needs --yes, or a yes on a terminal. */
async function confirmVideos(ctx: CommandContext, plan: Plan, flags: BuildFlags): Promise<void> {
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

function resumeCommand(ctx: CommandContext, id: string, flags: BuildFlags): string {
  const words = ['assetgen', 'build', id];
  if (flags.file) words.push('-f', flags.file);
  if (flags.lockOut) words.push('--lock-out', flags.lockOut);
  if (ctx.globals.baseUrl) words.push('--base-url', ctx.globals.baseUrl);
  if (ctx.globals.mock) words.push('--mock');
  return words.map(shellQuote).join(' ');
}

function throwForOutcome(ctx: CommandContext, results: ItemResult[], flags: BuildFlags): void {
  const failed = results.filter((result) => result.outcome === 'failed');
  const capped = results.filter((result) => result.outcome === 'capped');
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
    const unknown = capped.filter((result) => result.refusal?.kind === 'unknown-cost').map((result) => result.id);
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
      `Held at --max-credits ${flags.maxCredits}: ${plural(capped.length, 'asset')} not built (${listIds(capped.map((result) => result.id))}).`,
      hints.filter(Boolean).join(' '),
    );
  }
}
