// The paid part of `assetgen build`: the plan's generate and resume actions through a bounded pool,
// each asset on the same client and kit as the single commands (idempotency keys, follow, save),
// the lock updated before every wait so a crash or Ctrl-C never loses a paid job.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { AbortedError, AssetgenError, JobFailedError } from '../client/errors.js';
import type { AssetgenClient, Run, VideoJob } from '../client/types.js';
import type { CommandContext } from '../cli/context.js';
import { followRun, followVideo, targetFor } from '../cli/follow.js';
import { paidCall } from '../cli/idempotency.js';
import { saveOutputs, type OutputFile } from '../cli/save.js';
import { describeFiles, type FileHash } from '../build/hash.js';
import type { ManifestAsset } from '../build/manifest.js';
import { CreditBudget } from '../build/budget.js';
import { OutputClaims } from '../build/owners.js';
import type { PlanItem } from '../build/plan.js';
import { lockPath } from '../build/hash.js';
import { removeInside } from '../files/confine.js';
import type { LockWriter } from '../build/writer.js';
import { sanitizeLine } from '../ui/sanitize.js';
import { startBoard } from '../cli/board.js';

export type Outcome = 'built' | 'resumed' | 'failed' | 'skipped' | 'pruned';

export interface ItemResult {
  id: string;
  outcome: Outcome;
  files: string[];
  credits: number;
  /** Why it failed or was skipped. */
  reason?: string;
  /** For paid work left unfinished: how to pick it up. */
  resume?: string;
}

export interface RunOptions {
  concurrency: number;
  maxCredits?: number;
  failFast?: boolean;
  /** `assetgen build <id>` as this build was invoked (flags that decide where results go). */
  resumeCommand: (id: string) => string;
}

/** Runs the paid actions of a plan; never throws for one asset's failure (it is in the results). */
export async function runPlan(
  ctx: CommandContext,
  items: PlanItem[],
  root: string,
  writer: LockWriter,
  options: RunOptions,
): Promise<ItemResult[]> {
  const queue = items.filter((item) => item.action === 'generate' || item.action === 'resume');
  // One client for the whole build: its connections are reused from asset to asset (each asset's
  // own spending is still counted, see CommandContext.spendOn). Missing credentials end the build here.
  const client = queue.length ? await ctx.client() : undefined;
  const results: ItemResult[] = [];
  const started = Date.now();
  const total = queue.length;
  const board = startBoard(ctx, () => footer(results, total, ctx.credits.report.charged, started));
  const budget = new CreditBudget(options.maxCredits);
  let stop = false;
  const recording: Promise<void>[] = [];
  const claims = new OutputClaims(writer.lock, (file) => fs.existsSync(path.join(root, file)));
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      if (stop || ctx.signal.aborted) {
        results.push(skipped(item, ctx.signal.aborted ? 'interrupted before it started' : 'not started after an earlier failure'));
        continue;
      }
      const cost = budget.costOf(item);
      const refusal = budget.refusal(cost);
      if (refusal) {
        results.push(skipped(item, refusal));
        continue;
      }
      const settle = budget.reserve(cost);
      let filesSaved!: () => void;
      const saved = new Promise<void>((resolve) => (filesSaved = resolve));
      board.set(item.id, startingStatus(item));
      const progress = {
        saved: (credits: number) => {
          settle(credits);
          filesSaved();
        },
        status: (text: string) => board.set(item.id, text),
      };
      const done = buildOne(ctx, client!, item, { root, claims }, writer, options, progress).then((result) => {
        settle(result.credits);
        results.push(result);
        board.finish(item.id, resultLine(result));
        if (result.outcome === 'failed' && options.failFast) stop = true;
      });
      recording.push(done);
      // On to the next asset once this one's files are saved: its lock update is written while
      // the next one is submitted (often in the same write), instead of on every asset's path.
      await Promise.race([saved, done]);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
    await Promise.all(recording);
  } finally {
    board.stop();
  }
  // --prune: only the files the lock says assetgen made and that nobody changed (the plan checked).
  for (const item of items.filter((entry) => entry.action === 'prune')) {
    // By the confinement rule: never through a link, never outside the project (checked before paying too).
    const refused = attempt(() => item.prunable.forEach((file) => removeInside(root, file)));
    if (refused) {
      results.push({ id: item.id, outcome: 'failed', files: [], credits: 0, reason: refused });
      ctx.out.info(resultLine(results.at(-1)!));
      continue;
    }
    await writer.forget(item.id);
    results.push({ id: item.id, outcome: 'pruned', files: item.prunable, credits: 0 });
    ctx.out.info(resultLine(results.at(-1)!));
  }
  return results;
}

/** Runs `work`; the message of what it threw, if anything. */
function attempt(work: () => void): string | undefined {
  try {
    work();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const skipped = (item: PlanItem, reason: string): ItemResult => ({ id: item.id, outcome: 'skipped', files: [], credits: 0, reason });

function startingStatus(item: PlanItem): string {
  if (item.action === 'resume') return `resuming ${item.job?.jobId ?? 'its paid call'}`;
  const what =
    item.kind === 'image'
      ? `generating with ${item.agent}`
      : item.kind === 'workflow'
        ? `starting ${item.workflow}`
        : 'submitting a video job';
  return sanitizeLine(what);
}

/** The line a finished asset leaves on stderr. */
function resultLine(result: ItemResult): string {
  const mark = result.outcome === 'failed' ? '✗' : result.outcome === 'skipped' ? '-' : '✓';
  const what =
    result.outcome === 'failed' || result.outcome === 'skipped'
      ? `${result.outcome}: ${result.reason ?? ''}`
      : `${result.outcome} ${result.files.join(', ')}`;
  return `${mark} ${sanitizeLine(result.id)}  ${sanitizeLine(what)}${result.credits ? `  (${result.credits} credits)` : ''}`;
}

/** The board's totals: done/total, failures, credits spent, time so far. */
function footer(results: ItemResult[], total: number, credits: number, started: number): string {
  const failed = results.filter((result) => result.outcome === 'failed').length;
  const seconds = Math.floor((Date.now() - started) / 1000);
  const elapsed = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  return `${results.length}/${total} done${failed ? ` · ${failed} failed` : ''} · ${credits} credits · ${elapsed}`;
}

/** One asset: submit (or resume), wait, save, record. Its own quiet context, so pools do not interleave spinners. */
async function buildOne(
  ctx: CommandContext,
  client: AssetgenClient,
  item: PlanItem,
  where: { root: string; claims: OutputClaims },
  writer: LockWriter,
  options: RunOptions,
  progress: {
    /** Called once the asset's files are saved and described (with what it cost), before the lock records them. */
    saved: (credits: number) => void;
    /** What the asset is doing now, for the live board. */
    status: (text: string) => void;
  },
): Promise<ItemResult> {
  const quiet = ctx.forCall({
    onJobProgress: (update) => progress.status(sanitizeLine(update.message)),
    io: { ...ctx.io, stdout: discard(), stdoutIsTTY: false, stderrIsTTY: false },
    // Its own signal (aborted with the build's): each request listens to it while in flight, and
    // sixteen assets listening to one signal would pass node's listener warning threshold.
    signal: AbortSignal.any([ctx.signal]),
    globals: { quiet: true, json: false },
  });
  const asset = item.asset!;
  try {
    const hashes = new Map<string, FileHash>();
    const paths = await quiet.spendOn(() => produce(quiet, client, item, asset, where, writer, hashes, progress.status));
    const files = await describeFiles(where.root, paths, hashes);
    const credits = quiet.credits.report.charged;
    progress.saved(credits);
    await writer.finished(item.id, { files, credits });
    return { id: item.id, outcome: item.action === 'resume' ? 'resumed' : 'built', files: files.map((f) => f.path), credits };
  } catch (error) {
    // What was charged is in the build's tally already (the shared client reports to it); a
    // refund is known only to the asset's context.
    const { charged, refunded } = quiet.credits.report;
    if (refunded) ctx.credits.refund(refunded);
    if (error instanceof JobFailedError) {
      // The service gave up (and refunds a video): nothing to resume; the next build tries again.
      await writer.failed(item.id);
      return { id: item.id, outcome: 'failed', files: [], credits: charged - refunded, reason: error.message };
    }
    if (error instanceof AbortedError || ctx.signal.aborted) {
      return {
        id: item.id,
        outcome: 'skipped',
        files: [],
        credits: charged,
        reason: 'interrupted',
        resume: options.resumeCommand(item.id),
      };
    }
    const reason = error instanceof AssetgenError ? error.message : String(error);
    // Whatever was paid is in the lock (job id or idempotency key): building again resumes it.
    return { id: item.id, outcome: 'failed', files: [], credits: charged, reason, resume: options.resumeCommand(item.id) };
  } finally {
    await quiet.cleanup();
  }
}

async function produce(
  ctx: CommandContext,
  client: AssetgenClient,
  item: PlanItem,
  asset: ManifestAsset,
  { root, claims }: { root: string; claims: OutputClaims },
  writer: LockWriter,
  /** Filled with each saved file's hash, taken while it was written. */
  hashes: Map<string, FileHash>,
  status: (text: string) => void,
): Promise<string[]> {
  const { signal } = ctx;
  const key = item.job?.idempotencyKey ?? randomUUID();
  const submission = { spec: item.spec, kind: item.kind, agent: item.agent, workflow: item.workflow, idempotencyKey: key };
  const output = outputOption(asset, root);
  const save = (files: OutputFile[]): Promise<string[]> => {
    status(files.length === 1 ? 'saving' : `saving ${files.length} files`);
    return saveOutputs(ctx, client, files, {
      output,
      force: true,
      root,
      refuse: (file) => claims.claim(lockPath(root, file), item.id),
      onSaved: (saved) => hashes.set(path.resolve(saved.path), { sha256: saved.sha256, size: saved.size }),
    });
  };
  // Recorded before the paid call: a crash between paying and answering leaves the key to ask again with.
  if (!item.job?.jobId) await writer.submitted(item.id, submission);

  if (asset.kind === 'image') {
    const generation = await paidCall(ctx, key, (idempotencyKey) =>
      client.generate({ agentId: asset.agent!, prompt: asset.prompt! }, { signal, idempotencyKey }),
    );
    const file = { url: generation.assetUrl, stem: asset.id, contentType: generation.contentType, fallbackExtension: '.png' };
    return save([{ ...file, bytes: generation.assetBytes }]);
  }

  if (asset.kind === 'workflow') {
    let jobId = item.job?.jobId;
    let initial: Run | undefined;
    if (!jobId) {
      initial = await paidCall(ctx, key, (idempotencyKey) => client.runWorkflow(asset.workflow!, asset.set, { signal, idempotencyKey }));
      jobId = initial.id;
      await writer.submitted(item.id, { ...submission, jobId });
    }
    const run = await followRun(ctx, client, targetFor(ctx, 'run', jobId, { output }), initial);
    return save(
      run.outputs.flatMap((out, index) =>
        out.url
          ? [{ url: out.url, stem: `${asset.id}-${out.nodeId ?? index + 1}`, contentType: out.contentType, fallbackExtension: '.png' }]
          : [],
      ),
    );
  }

  let jobId = item.job?.jobId;
  let initial: VideoJob | undefined;
  if (!jobId) {
    initial = await paidCall(ctx, key, (idempotencyKey) =>
      client.createVideo(
        { prompt: asset.prompt!, agentId: asset.agent, durationSeconds: asset.duration, aspectRatio: asset.aspectRatio },
        { signal, idempotencyKey },
      ),
    );
    jobId = initial.id;
    await writer.submitted(item.id, { ...submission, jobId });
  }
  const job = await followVideo(ctx, client, targetFor(ctx, 'video', jobId, { output }), initial);
  if (!job.assetUrl) throw new AssetgenError(`Video job ${jobId} finished without a video URL.`, { code: 'unexpected_response' });
  return save([{ url: job.assetUrl, stem: asset.id, contentType: job.contentType, fallbackExtension: '.mp4' }]);
}

/** `-o` as the single commands take it (absolute: the manifest's paths are relative to its folder): a file, or a folder with a trailing slash. */
function outputOption(asset: ManifestAsset, root: string): string {
  return asset.out.type === 'file' ? path.join(root, asset.out.path) : `${path.join(root, asset.out.dir)}${path.sep}`;
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}
