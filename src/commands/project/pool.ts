// The paid part of `assetgen build`: the plan's generate and resume actions through a bounded pool,
// each asset (asset.ts) on the same client and kit as the single commands, under one credit
// budget, the lock updated before every wait so a crash or Ctrl-C never loses a paid job.
import fs from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { plural } from '../../cli/credits.js';
import {
  CreditBudget,
  DeclaredPriceCheck,
  describeRefusal,
  isRefusal,
  type CapRefusal,
  type PriceAdmission,
  type Reservation,
} from '../../pipeline/budget.js';
import { BuildPrices } from './build-prices.js';
import { OutputClaims } from '../../pipeline/owners.js';
import type { PlanAction, PlanItem } from '../../pipeline/records.js';
import type { LockWriter } from '../../pipeline/writer.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { startBoard, type Board } from '../../cli/board.js';
import { buildAsset, moveAsset, pruneAsset, pruneTakes } from './asset.js';
import type { AssetRun, ItemResult, RunFlags } from './records.js';
import { reprocessAsset } from './post.js';
import { packSheet, sheetsToPack } from './sheet.js';

/** The build's flags the pool reads, and how to resume an asset. */
export type RunOptions = Pick<RunFlags, 'concurrency' | 'maxCredits' | 'failFast'> & {
  /** `assetgen build <id>` as this build was invoked (flags that decide where results go). */
  resumeCommand: (id: string) => string;
  /** The cap as the reader set it, for refusals: `--max-credits 5`, or `` `budget: 5` in assetgen.yaml ``. */
  capName: string;
  /** The service's id (the plan's): the prices this build observes are remembered for it. */
  service: string;
};

/** The actions of the queue that send nothing to the service: a re-process, a move. */
const FREE_ACTIONS: ReadonlySet<PlanAction> = new Set(['reprocess', 'move']);

/** After Ctrl-C or --timeout, a paid call or poll in flight gets this long to answer (its charge is then known); tests may shorten it (CommandContext.answerGraceMs). */
const ANSWER_GRACE_MS = 5_000;

/** Runs the paid actions of a plan; never throws for one asset's failure (it is in the results). */
export async function runPlan(
  ctx: CommandContext,
  items: PlanItem[],
  root: string,
  writer: LockWriter,
  options: RunOptions,
): Promise<ItemResult[]> {
  // Sheets are packed after the rest (./sheet.ts): their inputs are made first.
  const queue = items.filter((item) => ['generate', 'resume', 'reprocess', 'move'].includes(item.action) && item.kind !== 'sheet');
  const sheets = sheetsToPack(items, writer);
  const total = queue.length + sheets.length;
  // One client for the whole build: its connections are reused from asset to asset (each asset's
  // own spending is still counted, see CommandContext.spendOn). Missing credentials end the build
  // here; a build that only re-processes or moves (no paid call) needs none.
  const client = queue.some((item) => !FREE_ACTIONS.has(item.action)) ? await ctx.client() : undefined;
  const results: ItemResult[] = [];
  const started = Date.now();
  const board = await startBoard(ctx, () => footer(results, total, ctx.credits.report.charged, started));
  const grace = graceSignal(ctx.signal, ctx.answerGraceMs ?? ANSWER_GRACE_MS);
  const run: AssetRun = {
    ctx,
    client: client!,
    root,
    // Which asset each output file belongs to: a save never replaces another asset's file (owners.ts).
    claims: new OutputClaims(writer.lock, (file) => fs.existsSync(path.join(root, file))),
    writer,
    // What the command was charged before its assets (planning's `workflows list`, its attempts of
    // unknown charge at a key call's price) is spent already: the cap holds for the whole build.
    budget: new CreditBudget(options.maxCredits, ctx.credits.report.charged + (ctx.credits.report.unknownCharges ?? 0)),
    prices: new BuildPrices(
      options.service,
      ctx.env,
      options.maxCredits === undefined ? undefined : new DeclaredPriceCheck(queue, options.maxCredits),
    ),
    requestSignal: grace.signal,
    resumeCommand: options.resumeCommand,
    capName: options.capName,
    // No client: nothing is submitted or polled (a build that only re-processes or moves).
    pollsCharged: client?.pollsCharged ?? false,
  };
  /** An asset's end (or its not starting), said in a line of its own. */
  const finish = (result: ItemResult): void => {
    results.push(result);
    board.finish(result.id, resultLine(result));
  };
  try {
    await workThrough(run, queue, { board, finish, options });
    await packSheets(run, sheets, { board, finish, results });
  } finally {
    grace.dispose();
    board.stop();
  }
  for (const item of items.filter((entry) => entry.action === 'prune')) {
    results.push(await pruneAsset(run, item));
    ctx.out.info(resultLine(results.at(-1)!));
  }
  // --prune-takes: the takes not picked, of the assets that did not fail (their files are as planned).
  const failed = new Set(results.filter((result) => result.outcome !== 'built' && result.outcome !== 'resumed').map((result) => result.id));
  for (const item of items.filter((entry) => entry.prunableTakes?.length && !failed.has(entry.id))) {
    const line = await pruneTakes(run, item);
    ctx.out.info(line);
  }
  return results;
}

/** How the pool reports: the live board, and where each asset's result goes. */
interface PoolReport {
  board: Board;
  finish: (result: ItemResult) => void;
}

/** The queue's assets, `options.concurrency` at a time, each under the credit budget; resolves once every result is recorded. */
async function workThrough(run: AssetRun, queue: PlanItem[], pool: PoolReport & { options: RunOptions }): Promise<void> {
  const { ctx, budget } = run;
  const declared = run.prices.declared;
  let stop = false;
  const recording: Promise<void>[] = [];
  const capped = (item: PlanItem, refusal: CapRefusal): void =>
    pool.finish({ ...skipped(item, describeRefusal(refusal, run.capName)), outcome: 'capped', refusal });
  const worker = async (): Promise<void> => {
    for (;;) {
      const next = stop || ctx.signal.aborted ? queue.shift() : nextAdmitted(queue, declared);
      if (next === 'wait') {
        // The first asset of a declared price is in flight: its answer (or its end) lets this one go.
        await declared!.changed();
        continue;
      }
      if (!next) return;
      const item = 'admission' in next ? next.item : next;
      if (stop || ctx.signal.aborted || !('admission' in next)) {
        pool.finish(skipped(item, ctx.signal.aborted ? 'interrupted before it started' : 'not started after an earlier failure'));
        continue;
      }
      const { admission } = next;
      if (!admission.go) {
        capped(item, admission.refusal);
        continue;
      }
      // The first answer of a declared price replaces it in the estimates of its other assets.
      const planned =
        admission.estimate === item.estimate ? item : { ...item, estimate: admission.estimate, takePrice: admission.takePrice };
      let reservation = budget.start(planned.estimate);
      // Held back only by what running assets hold and will not all spend: it waits for them.
      while (isRefusal(reservation) && reservation.kind === 'over-cap' && budget.mayFitLater(planned.estimate)) {
        await budget.ended();
        reservation = budget.start(planned.estimate);
      }
      if (isRefusal(reservation)) {
        declared?.ended(item);
        capped(item, reservation);
        continue;
      }
      const { saved, result } = startAsset(run, planned, reservation, pool.board);
      const done = result.then((ended) => {
        declared?.ended(item);
        pool.finish(ended);
        if (ended.outcome === 'failed' && pool.options.failFast) stop = true;
      });
      recording.push(done);
      // On to the next asset once this one's files are saved: its lock update is written while
      // the next one is submitted (often in the same write), instead of on every asset's path.
      await Promise.race([saved, done]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, pool.options.concurrency) }, worker));
  await Promise.all(recording);
}

/**
 * The first asset of the queue that may start now, taken out of it with what the declared-price
 * check says of it (a refusal is said there too); 'wait' when every one left waits for the first
 * answer of its agent; undefined when the queue is empty.
 */
function nextAdmitted(
  queue: PlanItem[],
  declared: DeclaredPriceCheck | undefined,
): { item: PlanItem; admission: Exclude<PriceAdmission, 'wait'> } | 'wait' | undefined {
  for (let index = 0; index < queue.length; index++) {
    const item = queue[index];
    const admission: PriceAdmission = declared ? declared.admit(item) : { go: true, estimate: item.estimate, takePrice: item.takePrice };
    if (admission === 'wait') continue;
    // The head almost always: shift() is what a plain queue costs.
    if (index === 0) queue.shift();
    else queue.splice(index, 1);
    return { item, admission };
  }
  return queue.length ? 'wait' : undefined;
}

/** Starts one asset: `saved` resolves once its files are saved (its reservation then released), `result` when it ends. */
function startAsset(
  run: AssetRun,
  item: PlanItem,
  reservation: Reservation,
  board: Board,
): { saved: Promise<void>; result: Promise<ItemResult> } {
  let filesSaved!: () => void;
  const saved = new Promise<void>((resolve) => (filesSaved = resolve));
  board.set(item.id, startingStatus(item));
  const progress = {
    saved: () => {
      reservation.release();
      filesSaved();
    },
    status: (text: string) => board.set(item.id, text),
  };
  const work =
    item.action === 'reprocess'
      ? reprocessAsset(run, item).finally(progress.saved)
      : item.action === 'move'
        ? moveAsset(run, item).finally(progress.saved)
        : buildAsset(run, item, reservation, progress);
  const result = work.then((ended) => {
    reservation.release();
    return ended;
  });
  return { saved, result };
}

/** Sheets, packed once the paid work is done: an input that did not finish leaves its sheet unpacked. */
async function packSheets(run: AssetRun, sheets: PlanItem[], pool: PoolReport & { results: ItemResult[] }): Promise<void> {
  const unfinished = new Set(
    pool.results.filter((result) => result.outcome !== 'built' && result.outcome !== 'resumed').map((result) => result.id),
  );
  for (const item of sheets) {
    pool.board.set(item.id, 'packing');
    pool.finish(run.ctx.signal.aborted ? skipped(item, 'interrupted before it started') : await packSheet(run, item, unfinished));
  }
}

/** A signal aborted `ms` after `signal` is (with its reason); dispose() drops the timer and listener. */
function graceSignal(signal: AbortSignal, ms: number): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    timer = setTimeout(() => controller.abort(signal.reason), ms);
    timer.unref();
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

const skipped = (item: PlanItem, reason: string): ItemResult => ({ id: item.id, outcome: 'skipped', files: [], credits: 0, reason });

function startingStatus(item: PlanItem): string {
  if (item.action === 'resume') return `resuming ${item.job?.jobId ?? 'its paid call'}`;
  if (item.action === 'reprocess') return 'post-processing';
  if (item.action === 'move') return 'moving to its new out';
  const what =
    item.kind === 'image'
      ? `generating${item.takes?.length ? ` ${item.takes.length === 1 ? 'a take' : `${item.takes.length} takes, one after another,`}` : ''} with ${item.agent}`
      : item.kind === 'workflow'
        ? `starting ${item.workflow}`
        : 'submitting a video job';
  return sanitizeLine(what);
}

/** The line a finished asset leaves on stderr. */
function resultLine(result: ItemResult): string {
  const done = result.outcome === 'built' || result.outcome === 'resumed' || result.outcome === 'pruned';
  const mark = done ? '✓' : result.outcome === 'failed' ? '✗' : '-';
  const what = done ? `${result.outcome} ${result.files.join(', ')}` : `${result.outcome}: ${result.reason ?? ''}`;
  return `${mark} ${sanitizeLine(result.id)}  ${sanitizeLine(what)}${result.credits ? `  (${plural(result.credits, 'credit')})` : ''}`;
}

/** The board's totals: done/total, failures, credits spent, time so far. */
function footer(results: ItemResult[], total: number, credits: number, started: number): string {
  const failed = results.filter((result) => result.outcome === 'failed').length;
  const seconds = Math.floor((Date.now() - started) / 1000);
  const elapsed = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  return `${results.length}/${total} done${failed ? ` · ${failed} failed` : ''} · ${plural(credits, 'credit')} · ${elapsed}`;
}
