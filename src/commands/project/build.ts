// `assetgen build`: the plan of a build from assetgen.yaml and assetgen.lock, then (without
// --dry-run) its paid actions through run.ts and pool.ts, the lock written before every wait.
import fs from 'node:fs';
import path from 'node:path';
import { MissingCredentialsError } from '../../client/errors.js';
import type { CommandContext } from '../../cli/context.js';
import { CreditCapError, UsageError } from '../../cli/errors.js';
import { displayPath } from '../../cli/save.js';
import { printTable } from '../../cli/table.js';
import { readLock, type Lock } from '../../pipeline/lock.js';
import type { LockWriter } from '../../pipeline/writer.js';
import { command } from '../../cli/command.js';
import type * as RunModule from './run.js';
import type { BuildRunResult } from './run.js';
import {
  actionCounts,
  budgetLine,
  checkBudget,
  creditCell,
  estimateText,
  failsBudget,
  listIds,
  planMarkdown,
  type BudgetCheck,
  type PlanView,
} from './plan-summary.js';
import type { Manifest, OutputTarget } from '../../pipeline/manifest.js';
import { openPlannedProject, openProject } from './open.js';
import { workflowsToList } from '../../pipeline/owners.js';
import { checkTargets } from '../../pipeline/targets.js';
import { hashProjectFiles, planBuild, type FileHashes, type Plan, type PlanItem, type PlanStatus } from '../../pipeline/plan.js';
import { parseShard, type Shard } from '../../pipeline/shard.js';
import { ENV } from '../../config/credentials.js';
import { sanitizeLine } from '../../ui/sanitize.js';

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

export const build = command({ run: planOrBuild, render: renderBuild, settle: settleBuild });

async function planOrBuild(ctx: CommandContext, selectors: string[], options: BuildOptions): Promise<BuildResult> {
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  if (options.dryRun) {
    const project = openPlannedProject(ctx, options.file);
    try {
      return await planAndRun(ctx, selectors, options, { ...project, shard });
    } finally {
      project.release();
    }
  }
  const { file, manifest, lockFile, service } = openProject(ctx, options.file);
  // The paid build holds the lock's one writer from planning to the end: no other process can
  // record (or lose) jobs in it meanwhile.
  const writer = await openWriter(ctx, lockFile, options.lockOut, service);
  try {
    const lock = writer.lock;
    const hashes = (): Promise<FileHashes> => hashProjectFiles(manifest, lock);
    return await planAndRun(ctx, selectors, options, { file, lockFile, lock, writer, manifest, shard, service, hashes });
  } finally {
    await writer.close();
  }
}

/** What a build computed: its dry run's plan, or every asset's outcome of a build that ran. */
export type BuildResult = DryRunResult | BuildRunResult;

const isDryRun = (result: BuildResult): result is DryRunResult => 'dryRun' in result;

function renderBuild(ctx: CommandContext, result: BuildResult, _selectors: string[], options: BuildOptions): void {
  if (isDryRun(result)) renderDryRun(ctx, result, options);
  else paid!.renderRun(ctx, result);
}

function settleBuild(ctx: CommandContext, result: BuildResult): void {
  if (isDryRun(result)) throwIfOverBudget(result.budget);
  else paid!.settleRun(ctx, result);
}

/** The paid path (the pool, the lock writer, the save), loaded on use: a dry run needs none of it. A build's result comes from it, so it is loaded before that result is shown. */
let paid: typeof RunModule | undefined;
const paidPath = async (): Promise<typeof RunModule> => (paid ??= await import('./run.js'));

/**
 * The lock this build writes: the project's, or with --lock-out a shard's own file (several shards
 * on one machine, or one per CI job), which starts as a copy of the project's lock — unless it is
 * there already from an interrupted run of the same shard, whose paid jobs it holds.
 */
async function openWriter(ctx: CommandContext, lockFile: string, lockOut: string | undefined, service: string): Promise<LockWriter> {
  const { LockWriter } = await import('../../pipeline/writer.js');
  if (!lockOut) return LockWriter.open(lockFile, { service });
  const target = path.resolve(ctx.cwd, lockOut);
  const fresh = !fs.existsSync(target);
  const writer = LockWriter.open(target, { service });
  if (fresh) await writer.replace(readLock(lockFile));
  return writer;
}

async function planAndRun(
  ctx: CommandContext,
  selectors: string[],
  options: BuildOptions,
  found: {
    file: string;
    lockFile: string;
    lock: Lock;
    writer?: LockWriter;
    manifest: Manifest;
    shard?: Shard;
    service: string;
    hashes: () => Promise<FileHashes>;
  },
): Promise<BuildResult> {
  const { file, lockFile, lock, writer, manifest, shard, service, hashes } = found;
  // The service is part of every spec: without one, nothing could be judged up to date.
  if (!service)
    throw new MissingCredentialsError(
      'No service URL is configured: the plan depends on which service builds the assets.',
      `Pass --base-url <url>, set ${ENV.baseUrl}, run \`assetgen auth login --base-url <url>\`, or plan against --mock.`,
    );
  const plan = planBuild(manifest, lock, await hashes(), {
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
  if (options.report) (await import('./gallery.js')).checkReportTarget(ctx, options.report);
  // The cap: --max-credits, else the manifest's budget; `--max-credits none` lifts it.
  const maxCredits = options.maxCredits === 'none' ? undefined : (options.maxCredits ?? manifest.budget);
  if (writer)
    return (await paidPath()).runBuild(
      ctx,
      plan,
      manifest.root,
      writer,
      { ...options, maxCredits, provenance: manifest.provenance },
      { file, lockFile: writer.file, service },
    );

  const budget = checkBudget(plan, maxCredits);
  const report = options.report
    ? await (await import('./gallery.js')).writePlanReport(ctx, options.report, plan, { file, lock })
    : undefined;
  return {
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
    ...(ctx.globals.mock ? { mock: true as const } : {}),
  };
}

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
  budget?: BudgetCheck;
  mock?: true;
}

/** People's view of a plan: the table and the estimate, or with --format markdown the PR summary on stdout. */
function renderDryRun(ctx: CommandContext, result: DryRunResult, options: BuildOptions): void {
  if (options.format === 'markdown') return ctx.out.result(planMarkdown(result, result.budget, displayPath(ctx, result.manifest)));
  if (ctx.out.json) return;
  if (!result.items.length)
    ctx.out.info(result.shard ? `No asset falls in shard ${result.shard.index}/${result.shard.total}.` : 'The manifest lists no assets.');
  else
    printTable(
      ctx,
      ['ID', 'STATUS', 'ACTION', 'KIND', 'CREDITS', 'OUT', 'WHY'],
      result.items.map((item) =>
        [item.id, item.status, item.action, item.kind, creditCell(item), item.out ?? '', item.reasons.join('; ')].map(sanitizeLine),
      ),
    );
  ctx.out.info(summary(result));
  const line = budgetLine(result.budget);
  if (line) ctx.out.info(line);
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
 * Node ids of the workflows that might write over another asset's file (src/pipeline/owners.ts), from the
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

function itemDocument(item: PlanItem): DryRunResult['items'][number] {
  const { asset, ...rest } = item;
  return { ...rest, ...(asset ? { out: outText(asset.out) } : {}) };
}

const outText = (out: OutputTarget): string => (out.type === 'file' ? out.path : `${out.dir === '.' ? '.' : out.dir}/`);
function counts(plan: Plan): Partial<Record<PlanStatus, number>> {
  const result: Partial<Record<PlanStatus, number>> = {};
  for (const item of plan.items) result[item.status] = (result[item.status] ?? 0) + 1;
  return result;
}

function summary(plan: PlanView): string {
  return `Dry run, nothing sent: ${actionCounts(plan).join(', ')}. Estimated cost: ${sanitizeLine(estimateText(plan))}.`;
}
