// `assetgen build`: the plan of a build from assetgen.yaml and assetgen.lock, then (without
// --dry-run) its paid actions through run.ts and pool.ts, the lock written before every wait.
import fs from 'node:fs';
import path from 'node:path';
import { MissingCredentialsError } from '../../client/errors.js';
import type { CommandContext } from '../../cli/context.js';
import { CreditCapError, UsageError } from '../../cli/errors.js';
import { displayPath } from '../../cli/save.js';
import { printTable } from '../../cli/table.js';
import { readLock, readLockOut } from '../../pipeline/lock.js';
import type { FileHashes, Lock, Manifest, OutputTarget, Plan, PlanItem, PlanStatus } from '../../pipeline/records.js';
import type { RemoteCache } from '../../cache/remote-cache.js';
import type { LockWriter } from '../../pipeline/writer.js';
import { command } from '../../cli/command.js';
import type { BudgetCheck, BuildDocument, BuildOptions, BuildResult, DryRunResult, ItemResult } from './records.js';
import { renderRun, runDocument, settleRun } from './run-result.js';
import {
  actionCounts,
  budgetLine,
  checkBudget,
  creditCell,
  estimateText,
  failsBudget,
  planMarkdown,
  pricesLine,
  staleSheetLine,
  staleSheets,
  type PlanView,
} from './plan-summary.js';
import { listIds } from '../../pipeline/id-list.js';
import { openPlannedProject, openProject } from './open.js';
import { workflowsToList } from '../../pipeline/owners.js';
import { checkTargets, sweepTargetFolders } from '../../pipeline/targets.js';
import { hashProjectFiles, planBuild, type PlanOptions } from '../../pipeline/plan.js';
import { inShard, parseShard, type Shard } from '../../pipeline/shard.js';
import { refuseStaleLockOut } from '../../pipeline/lock-history.js';
import { anyOf } from '../../cli/front-end.js';
import { learnedPrices, rememberPrices } from '../../config/learned-prices.js';
import { capName, capOf, unknownPriceRemedy, type Cap } from './cap.js';
import { sanitizeLine } from '../../ui/sanitize.js';

/** The outcomes whose assets a build offers the remote cache (a restored one came from it). */
const SHARED_OUTCOMES: ReadonlySet<string> = new Set(['built', 'resumed', 'unchanged']);

export const build = command({ run: planOrBuild, render: renderBuild, settle: settleBuild, document: buildDocument });

async function planOrBuild(ctx: CommandContext, selectors: string[], options: BuildOptions): Promise<BuildResult> {
  checkTakeFlags(ctx, selectors, options);
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  if (options.dryRun) {
    const { lock: projectLock, release, ...project } = openPlannedProject(ctx, options.file);
    try {
      // With --lock-out, the lock that build would start from (its shard's, journal included), refused as the build would refuse it.
      const { lockOut: given } = options;
      const lockOut = given ? readLockOut(lockOutFile(ctx, project.lockFile, given), () => projectLock) : null;
      if (given && lockOut) refuseStaleLockOut(given, lockOut, projectLock, lockOutScope(shard));
      const lock = lockOut ?? projectLock;
      return await planAndRun(ctx, selectors, options, { ...project, held: { kind: 'read', lock }, shard });
    } finally {
      release();
    }
  }
  const { file, manifest, lockFile, service, cache: planCache } = openProject(ctx, options.file);
  // The paid build holds the lock's one writer from planning to the end: no other process can
  // record (or lose) jobs in it meanwhile.
  const writer = await openWriter(ctx, lockFile, options.lockOut, service, shard);
  try {
    // No copy of the lock is kept here: planning takes its own (planFrom), dropped once the plan is made.
    const hashes = (lock: Lock): Promise<FileHashes> => hashProjectFiles(manifest, lock, undefined, planCache);
    return await planAndRun(ctx, selectors, options, {
      file,
      lockFile,
      held: { kind: 'writing', writer },
      manifest,
      shard,
      service,
      hashes,
    });
  } finally {
    await writer.close();
  }
}

/**
 * --more pays for each asset it names: never for every asset by omission; and it keeps what
 * --prune-takes would delete. --check goes with a build, not a dry run; --format with a dry run
 * only, and never with --json (either one is what stdout carries).
 */
function checkTakeFlags(ctx: CommandContext, selectors: string[], options: BuildOptions): void {
  const words = ctx.frontEnd;
  // A dry run changes no file: the outputs it would check are those `assetgen check` measures now.
  if (options.check && options.dryRun)
    throw new UsageError(
      `${words.option('check')} measures the outputs a build leaves, and ${words.option('dryRun')} builds nothing: use one at a time.`,
      `${words.use('check')} to hold the outputs as they are to their rules.`,
    );
  // --format and --json each choose what stdout carries: one of them, never one dropped unsaid.
  if (options.format !== undefined && ctx.globals.json)
    throw new UsageError(
      `--format ${options.format} and --json are alternatives: each says what stdout carries (the plan in Markdown for a pull request, or one JSON document for scripts); use one at a time.`,
      `For example: assetgen build --dry-run --format ${options.format} > plan.md, or assetgen build --dry-run --json`,
    );
  // The Markdown summary is a plan's: without a dry run the command would build (and pay) instead.
  if (options.format !== undefined && !options.dryRun)
    throw new UsageError(
      `--format ${options.format} writes the plan of a dry run, and this build would make the assets (paid calls): add ${words.option('dryRun')}.`,
      `For example: assetgen build --dry-run --format ${options.format} > plan.md`,
    );
  if (options.more === undefined) return;
  if (!selectors.length)
    throw new UsageError(
      `${words.option('more', options.more)} makes more takes of the assets you name (a paid call each): ${words.nameAssets}.`,
      `For example: ${words.buildExample({ ids: ['sword'], more: options.more, dryRun: true })}`,
    );
  if (options.pruneTakes) throw new UsageError('--more keeps every take and --prune-takes deletes those not picked: use one at a time.');
}

const isDryRun = (result: BuildResult): result is DryRunResult => 'dryRun' in result;

async function renderBuild(ctx: CommandContext, result: BuildResult, _selectors: string[], options: BuildOptions): Promise<void> {
  if (isDryRun(result)) await renderDryRun(ctx, result, options);
  else await renderRun(ctx, result);
}

function settleBuild(ctx: CommandContext, result: BuildResult): void {
  if (isDryRun(result)) throwIfOverBudget(ctx, result.budget);
  else settleRun(ctx, result);
}

/** The --json document: a dry run's result is its own; a build that ran leaves out what only its exit reads. */
function buildDocument(result: BuildResult): BuildDocument {
  return isDryRun(result) ? result : runDocument(result);
}

/**
 * The lock this build writes: the project's, or with --lock-out a shard's own file (several shards
 * on one machine, or one per CI job), which starts as a copy of the project's lock — unless it is
 * there already from an interrupted run of the same shard, whose paid jobs it holds. A file there
 * from an earlier round (started from an older assetgen.lock) is refused, before anything is paid.
 */
async function openWriter(
  ctx: CommandContext,
  lockFile: string,
  lockOut: string | undefined,
  service: string,
  shard: Shard | undefined,
): Promise<LockWriter> {
  const { LockWriter } = await import('../../pipeline/writer.js');
  if (!lockOut) return LockWriter.open(lockFile, { service });
  const target = lockOutFile(ctx, lockFile, lockOut);
  const fresh = !fs.existsSync(target);
  const writer = LockWriter.open(target, { service });
  const projectLock = readLock(lockFile);
  try {
    refuseStaleLockOut(lockOut, writer.lock, projectLock, lockOutScope(shard));
  } catch (error) {
    await writer.close();
    throw error;
  }
  // A new lock-out starts from the project's lock. A first run killed before it wrote one left its
  // journal, which open() folded in (its paid jobs): the project's lock fills in only the rest.
  if (fresh) await writer.seed(projectLock);
  return writer;
}

/**
 * Where --lock-out writes, refused (exit 2, nothing paid) when it is the project's own lock: a
 * shard's lock records its history there, and `lock merge` joins shard locks into assetgen.lock.
 */
function lockOutFile(ctx: CommandContext, lockFile: string, lockOut: string): string {
  const target = path.resolve(ctx.cwd, lockOut);
  if (sameFile(target, lockFile))
    throw new UsageError(
      `--lock-out ${lockOut} is the project's own lock, ${displayPath(ctx, lockFile)}: --lock-out names a shard's lock, a file of its own that \`assetgen lock merge\` then joins into it.`,
      `Name another file (--lock-out shard-1.lock, say), or leave --lock-out out to build into ${path.basename(lockFile)} itself. Nothing was charged.`,
    );
  return target;
}

/** The same file: one inode when both are there, else the same real path (a link or `..` resolved). */
function sameFile(a: string, b: string): boolean {
  const [one, other] = [a, b].map((file) => fs.statSync(file, { throwIfNoEntry: false }));
  if (one && other) return one.dev === other.dev && one.ino === other.ino;
  return realPath(a) === realPath(b);
}

/** A path with its folder's links resolved (the file itself need not be there). */
function realPath(file: string): string {
  try {
    return path.join(fs.realpathSync.native(path.dirname(file)), path.basename(file));
  } catch {
    return path.resolve(file);
  }
}

/**
 * The assets whose start a --lock-out lock is checked for: those of this build's shard (another
 * shard's entries in assetgen.lock move on as that shard is merged, and are no change of this one).
 */
const lockOutScope =
  (shard: Shard | undefined) =>
  (id: string): boolean =>
    inShard(id, shard);

/**
 * Where a build's lock is held: a dry run's lock as read, or a paid build's writer, whose lock is the
 * one read (copied only to plan from). The kind says which: a dry run never has a writer to pay through.
 */
type HeldLock = { readonly kind: 'read'; lock: Lock } | { readonly kind: 'writing'; writer: LockWriter };

/** The project a build works on, as opened: its manifest, where its lock is held, shard and service. */
interface OpenedBuild {
  file: string;
  lockFile: string;
  held: HeldLock;
  manifest: Manifest;
  shard?: Shard;
  service: string;
}

async function planAndRun(
  ctx: CommandContext,
  selectors: string[],
  options: BuildOptions,
  found: OpenedBuild & { hashes: (lock: Lock) => Promise<FileHashes> },
): Promise<BuildResult> {
  const { service } = found;
  // The service is part of every spec: without one, nothing could be judged up to date.
  if (!service)
    throw new MissingCredentialsError(
      'No service URL is configured: the plan depends on which service builds the assets.',
      `${anyOf([...ctx.frontEnd.setBaseUrl, `plan against ${ctx.frontEnd.useMock}`])}.`,
    );
  const { plan, fileHashes, planOptions, cache } = await planFrom(ctx, selectors, options, found);
  try {
    return await runOrShow(ctx, plan, options, { ...found, cache, hashes: fileHashes, planOptions });
  } finally {
    await cache?.close();
  }
}

/**
 * The plan, from the dry run's lock or the writer's. It sends nothing to the service: the workflow
 * nodes it may need (a charged call) are asked for by runOrShow, once the build can no longer be
 * refused for free. The remote cache is opened here and left open for the build when planning succeeds.
 */
async function planFrom(
  ctx: CommandContext,
  selectors: string[],
  options: BuildOptions,
  found: OpenedBuild & { hashes: (lock: Lock) => Promise<FileHashes> },
): Promise<{ plan: Plan; fileHashes: FileHashes; planOptions: PlanOptions; cache?: RemoteCache }> {
  const { held, manifest, shard, service, hashes } = found;
  const lock = held.kind === 'read' ? held.lock : held.writer.lock;
  const planOptions: PlanOptions = {
    service,
    // What this machine has seen the service charge, in any project: used where the lock has no charge.
    learnedPrices: learnedPrices(service, ctx.env),
    select: selectors,
    shard,
    force: options.force,
    prune: options.prune,
    more: options.more,
    moreOption: options.more === undefined ? undefined : ctx.frontEnd.option('more', options.more),
    pickCommand: ctx.frontEnd.pick,
    leftAlone: ctx.frontEnd.leftAlone,
    pruneTakes: options.pruneTakes,
  };
  const remote = await import('./remote.js');
  const cache = remote.openRemoteCache(ctx, options);
  try {
    let fileHashes = await hashes(lock);
    let plan = planBuild(manifest, lock, fileHashes, planOptions);
    // With a remote cache: what it holds of what this plan would pay for, then the plan with it
    // (those assets `restore`, 0 credits). Its prices stay in the options (PlanOptions.remote.prices).
    if (cache && !plan.unmatched.length) {
      const probed = await remote.probeRemote(ctx, cache, plan, lock, manifest.root, fileHashes);
      fileHashes = probed.hashes;
      planOptions.remote = probed.remote;
      // Prices other machines were charged travel in the cache's entries: learned here too (remembered
      // for later builds), after this project's own charges.
      const fromCache = remote.cachedPrices(probed.remote.prices);
      if (rememberPrices(service, fromCache, ctx.env)) planOptions.learnedPrices = learnedPrices(service, ctx.env);
      plan = planBuild(manifest, lock, fileHashes, planOptions);
    }
    return { plan, fileHashes, planOptions, cache };
  } catch (error) {
    await cache?.close();
    throw error;
  }
}

/** The plan carried out (restores first, then the paid build, then uploads), or shown (a dry run). */
async function runOrShow(
  ctx: CommandContext,
  plan: Plan,
  options: BuildOptions,
  found: OpenedBuild & { cache?: RemoteCache; hashes: FileHashes; planOptions: PlanOptions },
): Promise<BuildResult> {
  const { file, lockFile, held, manifest, shard, service, cache } = found;
  if (plan.unmatched.length)
    throw new UsageError(`No asset matches ${plan.unmatched.map((s) => `"${s}"`).join(', ')} in ${displayPath(ctx, file)}.`);
  checkTargets(manifest.root, plan.items);
  // A paid build (never a dry run) first clears what a killed build left: its stale temp files.
  if (held.kind === 'writing') sweepTargetFolders(manifest.root, plan.items);
  if (options.report) (await import('./gallery.js')).checkReportTarget(ctx, options.report);
  // The cap: --max-credits, else the manifest's budget; `--max-credits none` lifts it.
  const cap = capOf(options.maxCredits, manifest.budget);
  const maxCredits = cap?.max;
  const capWords = cap && { ...cap, name: capName(ctx, cap, file) };
  const priceRemedy = cap && unknownPriceRemedy(ctx, plan.prices, cap, options);
  if (held.kind === 'writing') {
    const { writer } = held;
    const run = await import('./run.js');
    // Everything above refuses for free; so does the videos' confirmation (--yes, or a yes on a
    // terminal), asked before the build's first charged call: a refusal or a "no" costs nothing.
    await run.confirmVideos(ctx, plan, options.yes);
    const confirmed = new Set(plan.items.filter((item) => item.kind === 'video' && item.action === 'generate').map((item) => item.id));
    // Then the nodes of the workflows it runs, when the lock does not know them and a clash is
    // possible (`workflows list`, charged with the API key: within the cap), and the plan again with
    // them: its ownership check now covers their files (exit 2 on a clash, the list's charge said).
    const charged = ctx.credits.report.charged;
    const nodes = await workflowNodes(ctx, manifest, writer.lock, workflowsRun(plan), cap, file);
    const planningCredits = ctx.credits.report.charged - charged;
    if (nodes.size) {
      found.planOptions.workflowNodes = nodes;
      plan = planBuild(manifest, writer.lock, found.hashes, found.planOptions);
    }
    let restored: ItemResult[] = [];
    if (cache && plan.items.some((item) => item.action === 'restore')) {
      const remote = await import('./remote.js');
      const done = await remote.restorePlanned(ctx, cache, plan.items, manifest.root, writer, found.hashes);
      restored = done.restored;
      // Planned again from the lock and the files as the restores left them, without restores: an
      // asset the cache failed to give back is paid for (or replayed) as without a cache.
      const { remote: held, ...rest } = found.planOptions;
      const prices = held ? { remote: { files: new Set<string>(), specs: new Map(), prices: held.prices } } : {};
      plan = planBuild(manifest, writer.lock, done.hashes, { ...rest, ...prices });
    }
    // The paid path (the pool, the lock writer, the save), loaded on use: a dry run needs none of it.
    const result = await run.runBuild(
      ctx,
      plan,
      manifest.root,
      writer,
      {
        ...options,
        maxCredits,
        provenance: manifest.provenance,
        ...(capWords ? { capName: capWords.name } : {}),
        ...(priceRemedy ? { priceRemedy } : {}),
      },
      { file, lockFile: writer.file, service, manifest },
      restored,
      confirmed,
    );
    // The service refused the credentials or the credits, and the assets after it were not started: its own exit (4, 5).
    const refused = (await import('./asset.js')).serviceRefusal(writer);
    if (refused) result.refused = refused;
    // Planning's charged `workflows list`: in `credits` already (and counted by the cap: pool.ts), said apart from the assets'.
    if (planningCredits) result.planningCredits = planningCredits;
    // What this build made, and what it found up to date: an asset built before the cache was set,
    // or by a run killed before its upload, is uploaded by the next build that has it (as a
    // Turborepo run asks the cache for every task), so a fresh clone finds everything.
    const shared = result.items.filter((item) => SHARED_OUTCOMES.has(item.outcome)).map((item) => item.id);
    if (cache && shared.length) await (await import('./remote.js')).uploadBuilt(cache, writer.lock, shared, manifest.root);
    return result;
  }

  // A dry run sends nothing: the nodes a build would ask for are not learned, and that is said.
  const unlisted = workflowsToList(manifest, held.lock, workflowsRun(plan));
  if (unlisted.length) ctx.out.warn(sanitizeLine(unlistedWarning(unlisted)));
  const budget = checkBudget(plan, capWords, priceRemedy);
  const report = options.report
    ? await (await import('./gallery.js')).writePlanReport(ctx, options.report, plan, { file, lock: held.lock })
    : undefined;
  const stale = staleSheets(plan.items);
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
    prices: plan.prices,
    ...(budget ? { budget } : {}),
    ...(stale.length ? { staleSheets: stale } : {}),
    ...(ctx.globals.mock ? { mock: true as const } : {}),
  };
}

/** People's view of a plan: the table and the estimate, or with --format markdown the PR summary on stdout. */
async function renderDryRun(ctx: CommandContext, result: DryRunResult, options: BuildOptions): Promise<void> {
  if (options.format === 'markdown') return ctx.out.result(planMarkdown(result, result.budget, displayPath(ctx, result.manifest)));
  if (ctx.out.json) return;
  if (!result.items.length)
    ctx.out.info(result.shard ? `No asset falls in shard ${result.shard.index}/${result.shard.total}.` : 'The manifest lists no assets.');
  else
    await printTable(
      ctx,
      ['ID', 'STATUS', 'ACTION', 'KIND', 'CREDITS', 'OUT', 'WHY'],
      result.items.map((item) =>
        [item.id, item.status, item.action, item.kind, creditCell(item), item.out ?? '', item.reasons.join('; ')].map(sanitizeLine),
      ),
      // On a narrow terminal what it will do and cost stay beside the whole id longest.
      { leaveOutFirst: ['WHY', 'OUT', 'KIND', 'STATUS'] },
    );
  ctx.out.info(summary(result));
  const prices = pricesLine(result);
  if (prices) ctx.out.info(sanitizeLine(prices));
  for (const sheet of result.staleSheets ?? []) ctx.out.warn(sanitizeLine(staleSheetLine(sheet)));
  const line = budgetLine(result.budget);
  if (line) ctx.out.info(sanitizeLine(line));
  // The remedy for unknown prices follows as the hint of the exit-8 error (throwIfOverBudget).
}

/** A dry run predicts the real build's exit: 8 when its cap would hold something back, before anything is paid. */
function throwIfOverBudget(ctx: CommandContext, budget: BudgetCheck | undefined): void {
  if (!failsBudget(budget)) return;
  const { over, max, name, unknown, remedy } = budget!;
  // A price nobody knows is not fixed by a bigger budget: that case names its remedies alone.
  const raise = `Raise the budget (or ${ctx.frontEnd.option('maxCredits')}), build fewer assets, or ${ctx.frontEnd.liftCap} to lift the cap.`;
  throw new CreditCapError(
    over
      ? `The plan's estimate passes the cap of ${max} credits (${name}).`
      : `The plan has assets of unknown price (${listIds(unknown)}), which a build capped at ${max} credits (${name}) would hold back.`,
    over ? [raise, ...(unknown.length && remedy ? [remedy] : [])].join(' ') : (remedy ?? raise),
  );
}

/** The workflow assets a build runs (submits, or resumes): the only ones whose nodes it may ask for. */
function workflowsRun(plan: Plan): Set<string> {
  const running = new Set<string>();
  for (const item of plan.items)
    if (item.kind === 'workflow' && (item.action === 'generate' || item.action === 'resume')) running.add(item.id);
  return running;
}

/** What a dry run could not check without the service's `workflows list`, which the build makes. */
function unlistedWarning(workflows: readonly string[]): string {
  const them = workflows.length === 1 ? 'it' : 'they';
  return (
    `The dry run did not learn the nodes of ${listIds(workflows.map((id) => `workflow ${id}`))} (a dry run sends nothing): ` +
    `whether the files ${them} would write belong to another asset is checked by the build, which asks the service's \`workflows list\` ` +
    `(charged with the API key, within the cap; free with a session) before it pays for any asset.`
  );
}

/**
 * What a call that makes nothing (a poll, `workflows list`) is taken to cost with the API key before
 * an answer says: the price the cap asks for a build's first poll (pipeline/budget.ts pollPrice).
 */
const KEY_CALL_PRICE = 1;

/**
 * Node ids of the workflows the build runs that might write over another asset's file
 * (src/pipeline/owners.ts), from the service's `workflows list`; asked only when the lock does not
 * know them (usually never), and only once nothing can refuse the build for free (runOrShow).
 * The list goes with the session when one is configured (free), else with the API key, which the
 * service charges: then it is asked of the cap like any other charged call — at a key call's price,
 * and again before the client retries it after a dropped connection (each attempt that reached the
 * service is charged) — and not made when the cap cannot afford it (a cap of 0 charges nothing):
 * the warning says what planning could not learn, and the save's own check (no file another asset
 * owns is replaced) is what stands. What it was charged is in the build's credits and counts
 * against the cap (pool.ts starts the budget from it).
 */
async function workflowNodes(
  ctx: CommandContext,
  manifest: Manifest,
  lock: Lock,
  running: ReadonlySet<string>,
  cap: Cap | undefined,
  file: string,
): Promise<Map<string, string[]>> {
  const wanted = workflowsToList(manifest, lock, running);
  if (!wanted.length) return new Map();
  const client = await ctx.client();
  // Its credential is a poll's (a call that makes nothing: the session when there is one).
  const price = client.pollsCharged ? KEY_CALL_PRICE : 0;
  const fits = (calls: number): boolean => cap === undefined || calls * price <= cap.max;
  /** Planning goes on without the nodes (the cap would not pay for the list, or for its retry): said once. */
  const without = (why: string): Map<string, string[]> => {
    const them = wanted.length === 1 ? 'it' : 'they';
    ctx.out.warn(
      sanitizeLine(
        `Planning did not learn the nodes of ${listIds(wanted.map((id) => `workflow ${id}`))}: ${why}. ` +
          `Whether the files ${them} would write belong to another asset is not checked before paying (the save still never replaces one); with a session (free for that list) or a larger cap it is.`,
      ),
    );
    return new Map();
  };
  const charged = `\`workflows list\` is charged with the API key (${price} credit${price === 1 ? '' : 's'} a call)`;
  if (!fits(1)) return without(`${charged}, which ${capName(ctx, cap!, file)} does not allow`);
  let retryRefused = false;
  let workflows;
  try {
    workflows = await client.listWorkflows({
      signal: ctx.signal,
      // The client's retry after a dropped connection is another charged call: only within the cap.
      mayRetry: (unanswered) => {
        retryRefused = !fits(unanswered + 1);
        return !retryRefused;
      },
    });
  } catch (error) {
    if (!retryRefused || ctx.signal.aborted) throw error;
    return without(`${charged}; its connection dropped and ${capName(ctx, cap!, file)} does not allow asking again`);
  }
  return new Map(
    workflows.filter((workflow) => wanted.includes(workflow.id)).map((workflow) => [workflow.id, workflow.nodes.map((node) => node.id)]),
  );
}

function itemDocument(item: PlanItem): DryRunResult['items'][number] {
  // The rest is the document, `out` set on it: spreading it into another object cost ~10 µs an item.
  const { asset, ...document }: DryRunResult['items'][number] & Pick<PlanItem, 'asset'> = item;
  if (asset) document.out = outText(asset.out);
  return document;
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
