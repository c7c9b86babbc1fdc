// `assetgen build`: the plan of a build from assetgen.yaml and assetgen.lock, then (without
// --dry-run) its paid actions through build-run.ts, the lock written before every wait.
import fs from 'node:fs';
import path from 'node:path';
import { MissingCredentialsError } from '../client/errors.js';
import type { CommandContext } from '../cli/context.js';
import { CreditCapError, UsageError } from '../cli/errors.js';
import { displayPath } from '../cli/save.js';
import { readLock, type Lock } from '../build/lock.js';
import type { LockWriter } from '../build/writer.js';
import {
  actionCounts,
  budgetLine,
  checkBudget,
  estimateText,
  failsBudget,
  listIds,
  planMarkdown,
  type BudgetCheck,
} from './build-plan-summary.js';
import type { Manifest, OutputTarget } from '../build/manifest.js';
import { openProject } from './project.js';
import { workflowsToList } from '../build/owners.js';
import { checkTargets } from '../build/targets.js';
import { hashProjectFiles, planBuild, type Plan, type PlanItem, type PlanStatus } from '../build/plan.js';
import { parseShard, type Shard } from '../build/shard.js';
import { ENV } from '../config/credentials.js';
import { sanitizeLine } from '../ui/sanitize.js';

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
}

export async function build(ctx: CommandContext, selectors: string[], options: BuildOptions): Promise<void> {
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  const { file, manifest, lockFile, service } = openProject(ctx, options.file);
  // The paid build holds the lock's one writer from planning to the end: no other process can
  // record (or lose) jobs in it meanwhile.
  const writer = options.dryRun ? undefined : await openWriter(ctx, lockFile, options.lockOut);
  try {
    const lock = writer ? writer.lock : readLock(lockFile);
    await planAndRun(ctx, selectors, options, { file, lockFile, lock, writer, manifest, shard, service });
  } finally {
    await writer?.close();
  }
}

/**
 * The lock this build writes: the project's, or with --lock-out a shard's own file (several shards
 * on one machine, or one per CI job), which starts as a copy of the project's lock — unless it is
 * there already from an interrupted run of the same shard, whose paid jobs it holds.
 */
async function openWriter(ctx: CommandContext, lockFile: string, lockOut: string | undefined): Promise<LockWriter> {
  const { LockWriter } = await import('../build/writer.js');
  if (!lockOut) return LockWriter.open(lockFile);
  const target = path.resolve(ctx.cwd, lockOut);
  const fresh = !fs.existsSync(target);
  const writer = LockWriter.open(target);
  if (fresh) await writer.replace(readLock(lockFile));
  return writer;
}

async function planAndRun(
  ctx: CommandContext,
  selectors: string[],
  options: BuildOptions,
  found: { file: string; lockFile: string; lock: Lock; writer?: LockWriter; manifest: Manifest; shard?: Shard; service: string },
): Promise<void> {
  const { file, lockFile, lock, writer, manifest, shard, service } = found;
  // The service is part of every spec: without one, nothing could be judged up to date.
  if (!service)
    throw new MissingCredentialsError(
      'No service URL is configured: the plan depends on which service builds the assets.',
      `Pass --base-url <url>, set ${ENV.baseUrl}, run \`assetgen auth login --base-url <url>\`, or plan against --mock.`,
    );
  const plan = planBuild(manifest, lock, await hashProjectFiles(manifest, lock), {
    service,
    workflowNodes: writer ? await workflowNodes(ctx, manifest, lock) : undefined,
    select: selectors,
    shard,
    force: options.force,
    prune: options.prune,
  });
  if (plan.unmatched.length)
    throw new UsageError(`No asset matches ${plan.unmatched.map((s) => `"${s}"`).join(', ')} in ${displayPath(ctx, file)}.`);
  checkTargets(manifest.root, plan.items);
  // The cap: --max-credits, else the manifest's budget; `--max-credits none` lifts it.
  const maxCredits = options.maxCredits === 'none' ? undefined : (options.maxCredits ?? manifest.budget);
  // The paid path, the table and the gallery load on use: a dry run with --json needs none of them.
  if (writer)
    return (await import('./build-report.js')).runBuild(
      ctx,
      plan,
      manifest.root,
      writer,
      { ...options, maxCredits },
      { file, lockFile: writer.file, service },
    );

  const budget = checkBudget(plan, maxCredits);
  if (options.format === 'markdown') {
    ctx.out.result(planMarkdown(plan, budget, displayPath(ctx, file)));
    return throwIfOverBudget(budget);
  }
  const report = options.report
    ? await (await import('./report.js')).writePlanReport(ctx, options.report, plan, { file, lock })
    : undefined;
  ctx.out.document({
    manifest: file,
    lock: lockFile,
    service,
    dryRun: true,
    ...(shard ? { shard } : {}),
    ...(report ? { report } : {}),
    items: plan.items.map(itemDocument),
    counts: counts(plan),
    estimate: plan.estimate,
    ...(budget ? { budget } : {}),
    ...(ctx.globals.mock ? { mock: true } : {}),
  });
  if (ctx.out.json) return throwIfOverBudget(budget);
  if (!plan.items.length) ctx.out.info(shard ? `No asset falls in shard ${shard.index}/${shard.total}.` : 'The manifest lists no assets.');
  else
    (await import('../cli/table.js')).printTable(
      ctx,
      ['ID', 'STATUS', 'ACTION', 'KIND', 'CREDITS', 'OUT', 'WHY'],
      plan.items.map((item) =>
        [
          item.id,
          item.status,
          item.action,
          item.kind,
          credits(item),
          item.asset ? outText(item.asset.out) : '',
          item.reasons.join('; '),
        ].map(sanitizeLine),
      ),
    );
  ctx.out.info(summary(plan));
  const line = budgetLine(budget);
  if (line) ctx.out.info(line);
  throwIfOverBudget(budget);
}

/** A dry run predicts the real build's exit: 8 when its cap would hold something back, before anything is paid. */
function throwIfOverBudget(budget: BudgetCheck | undefined): void {
  if (!failsBudget(budget)) return;
  throw new CreditCapError(
    budget!.over
      ? `The plan's estimate passes the cap of ${budget!.max} credits.`
      : `The plan has assets of unknown price (${listIds(budget!.unknown)}), which a build capped at ${budget!.max} credits would hold back.`,
    'Raise the budget (or --max-credits), build fewer assets, or pass --max-credits none to lift the cap.',
  );
}

/**
 * Node ids of the workflows that might write over another asset's file (./owners.ts), from the
 * service's free `workflows list`; asked only when the lock does not know them (usually never).
 */
async function workflowNodes(ctx: CommandContext, manifest: Manifest, lock: Lock): Promise<Map<string, string[]>> {
  const wanted = workflowsToList(manifest, lock);
  if (!wanted.length) return new Map();
  const workflows = await (await ctx.client()).listWorkflows({ signal: ctx.signal });
  return new Map(
    workflows.filter((workflow) => wanted.includes(workflow.id)).map((workflow) => [workflow.id, workflow.nodes.map((node) => node.id)]),
  );
}

function itemDocument(item: PlanItem): Record<string, unknown> {
  const { asset, ...rest } = item;
  return { ...rest, ...(asset ? { out: outText(asset.out) } : {}) };
}

const outText = (out: OutputTarget): string => (out.type === 'file' ? out.path : `${out.dir === '.' ? '.' : out.dir}/`);
const credits = (item: PlanItem): string => (item.action !== 'generate' ? '' : item.estimate === null ? '?' : String(item.estimate));

function counts(plan: Plan): Partial<Record<PlanStatus, number>> {
  const result: Partial<Record<PlanStatus, number>> = {};
  for (const item of plan.items) result[item.status] = (result[item.status] ?? 0) + 1;
  return result;
}

function summary(plan: Plan): string {
  return `Dry run, nothing sent: ${actionCounts(plan).join(', ')}. Estimated cost: ${sanitizeLine(estimateText(plan))}.`;
}
