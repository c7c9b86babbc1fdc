// One asset of a build: submit (or resume), wait, save, record — every charged call asked of the
// credit budget first, every charge recorded in the lock with the job, so a resume adds to it.
import path from 'node:path';
import { Writable } from 'node:stream';
import { AbortedError, AssetgenError, JobFailedError } from '../../client/errors.js';
import { waitForRun, waitForVideo } from '../../client/poll.js';
import type { AssetgenClient, CallOptions, Credits } from '../../client/types.js';
import type { CommandContext } from '../../cli/context.js';
import { followRun, followVideo, runOutputFiles, targetFor, videoOutputFile } from '../../cli/follow.js';
import { paidCall } from '../../cli/idempotency.js';
import { saveOutputs, type OutputFile } from '../../cli/save.js';
import { describeRefusal, type CapRefusal, type CreditBudget, type Reservation } from '../../pipeline/budget.js';
import { describeFiles, idempotencyKeyFor, lockPath, specParts, type FileHash } from '../../pipeline/hash.js';
import type { ManifestAsset } from '../../pipeline/manifest.js';
import type { OutputClaims } from '../../pipeline/owners.js';
import type { AssetResult, WorkedOutcome } from '../../pipeline/outcome.js';
import type { PlanItem } from '../../pipeline/plan.js';
import type { LockWriter, Processed } from '../../pipeline/writer.js';
import { originalsFolder } from '../../pipeline/post.js';
import { processOriginal } from './post.js';
import { removeInside } from '../../files/confine.js';
import { sanitizeLine } from '../../ui/sanitize.js';

/** How an asset the build worked on ended: part of the one closed union (src/pipeline/outcome.ts). */
export type Outcome = WorkedOutcome;

/** One asset's part of the build as the pool sees it: the record of outcome.ts, with the budget's refusal itself. */
export type ItemResult = Pick<AssetResult, 'id' | 'files' | 'credits' | 'cost' | 'reason' | 'resume'> & {
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
}

/** The budget refused the asset's next charged call: it stops there, its paid job kept in the lock. */
class CapReached extends Error {
  constructor(readonly refusal: CapRefusal) {
    super(describeRefusal(refusal));
  }
}

/** Runs one asset to its end; never throws for its own failure (it is in the result). */
export async function buildAsset(
  run: AssetRun,
  item: PlanItem,
  reservation: Reservation,
  progress: {
    /** Once the asset's files are saved and described, before the lock records them. */
    saved: () => void;
    /** What the asset is doing now, for the live board. */
    status: (text: string) => void;
  },
): Promise<ItemResult> {
  const { ctx, writer } = run;
  const quiet = ctx.forCall({
    onJobProgress: (update) => progress.status(sanitizeLine(update.message)),
    io: { ...ctx.io, stdout: discard(), stdoutIsTTY: false, stderrIsTTY: false },
    // Its own signal (aborted with the build's): each request listens to it while in flight, and
    // sixteen assets listening to one signal would pass node's listener warning threshold.
    signal: AbortSignal.any([ctx.signal]),
    globals: { quiet: true, json: false },
  });
  const tally = quiet.credits;
  /** The job's charges so far: what the lock recorded before this build, plus this build's. */
  const jobCredits = (): number | null => {
    const base = recordedCharge(item, tally.paidEarlier);
    return base === null ? null : base + tally.report.charged;
  };
  const asset = item.asset!;
  try {
    const hashes = new Map<string, FileHash>();
    const calls = budgetedClient(run, reservation);
    const processed: Processed = {};
    const made = () => produce(quiet, run, calls, item, asset, { hashes, processed }, progress.status, jobCredits);
    const paths = await quiet.spendOn(made);
    const files = await describeFiles(run.root, paths, hashes);
    progress.saved();
    const { charged, refunded } = tally.report;
    const paid = jobCredits();
    const cost = paid === null ? null : paid - refunded;
    await writer.finished(item.id, { files, credits: cost, ...processed });
    const outcome = item.action === 'resume' ? 'resumed' : 'built';
    return { id: item.id, outcome, files: files.map((f) => f.path), credits: charged - refunded, cost };
  } catch (error) {
    // What was charged is in the build's tally already (the shared client reports to it); a
    // refund is known only to the asset's context.
    const { charged, refunded } = tally.report;
    if (refunded) {
      ctx.credits.refund(refunded);
      reservation.charged(-refunded);
    }
    const result = (outcome: Outcome, reason: string, resume = true): ItemResult => ({
      id: item.id,
      outcome,
      files: [],
      credits: charged - refunded,
      reason,
      ...(resume ? { resume: run.resumeCommand(item.id) } : {}),
    });
    // The service gave up (and refunds a video): nothing to resume; the next build tries again. A job
    // that succeeded without its file is charged and not refunded: kept, so no build pays for it twice.
    if (error instanceof JobFailedError && error.code !== 'job_empty') {
      await writer.failed(item.id);
      return result('failed', error.message, false);
    }
    // The paid job stays in the lock with what it was charged so far: a resume adds to that.
    const paid = jobCredits();
    if (paid !== null && paid > 0) await writer.charged(item.id, paid).catch(() => {});
    if (error instanceof CapReached) return { ...result('capped', error.message), refusal: error.refusal };
    if (error instanceof AbortedError || ctx.signal.aborted)
      return result('interrupted', 'interrupted: its paid job is kept in assetgen.lock');
    const reason = error instanceof AssetgenError ? error.message : String(error);
    // Whatever was paid is in the lock (job id or idempotency key): building again resumes it.
    return result('failed', reason);
  } finally {
    await quiet.cleanup();
  }
}

/**
 * What the lock knew this job had been charged before this build: a resume of a job whose charge
 * was recorded adds to it; one whose answer was never recorded learns it from the replayed answer
 * (`paidEarlier`); a job recorded by an older assetgen (an id, no charge) is unknown.
 */
function recordedCharge(item: PlanItem, paidEarlier: number): number | null {
  if (item.action === 'resume' && item.job?.credits !== undefined) return item.job.credits;
  if (item.action === 'resume' && item.job?.jobId) return null;
  return paidEarlier;
}

async function produce(
  ctx: CommandContext,
  run: AssetRun,
  client: AssetgenClient,
  item: PlanItem,
  asset: ManifestAsset,
  /** Filled with each saved file's hash, taken while it was written, and what post-processing made. */
  made: { hashes: Map<string, FileHash>; processed: Processed },
  status: (text: string) => void,
  jobCredits: () => number | null,
): Promise<string[]> {
  const { writer, root, claims } = run;
  const { hashes } = made;
  const generation = item.job ? item.job.generation : (item.generation ?? 1);
  const key = item.job?.idempotencyKey ?? idempotencyKeyFor(item.id, item.spec, generation ?? 1);
  // Sent for the first time by this build: a replay after a lost attempt is then this build's own charge.
  const keyIsNew = !item.job && !item.reusesKey;
  const submission = {
    spec: item.spec,
    specParts: specParts(asset),
    kind: item.kind,
    agent: item.agent,
    workflow: item.workflow,
    idempotencyKey: key,
    generation,
  };
  const output = outputOption(asset, root);
  const save = (files: OutputFile[], to = output): Promise<string[]> => {
    status(files.length === 1 ? 'saving' : `saving ${files.length} files`);
    return saveOutputs(ctx, client, files, {
      output: to,
      force: true,
      root,
      refuse: (file) => claims.claim(lockPath(root, file), item.id),
      onSaved: (saved) => hashes.set(path.resolve(saved.path), { sha256: saved.sha256, size: saved.size }),
    });
  };
  // The paid call's own signal waits out the grace period: at Ctrl-C its answer (the job id, the charge) still arrives.
  const paidSignal = AbortSignal.any([run.requestSignal]);
  /** The paid call, with the build's key, under the grace signal. */
  const pay = <T extends { credits: Credits }>(call: (options: CallOptions) => Promise<T>): Promise<T> =>
    paidCall(ctx, key, (options) => call({ signal: paidSignal, ...options }), keyIsNew);
  /**
   * A job's paid call (a run, a video), unless the lock has its id already; the job is recorded as
   * soon as the service answers, with its id and what it has been charged.
   */
  const submitJob = async <T extends { id: string; credits: Credits }>(
    call: (options: CallOptions) => Promise<T>,
  ): Promise<{ jobId: string; initial?: T }> => {
    if (item.job?.jobId) return { jobId: item.job.jobId };
    const initial = await pay(call);
    await writer.submitted(item.id, { ...submission, jobId: initial.id, credits: jobCredits() ?? undefined });
    return { jobId: initial.id, initial };
  };
  // Recorded before the paid call: a crash between paying and answering leaves the key to ask again with.
  if (!item.job?.jobId) await writer.submitted(item.id, submission);

  if (asset.kind === 'image') {
    const generated = await pay((options) => client.generate({ agentId: asset.agent!, prompt: asset.prompt! }, options));
    const file = { url: generated.assetUrl, stem: asset.id, contentType: generated.contentType, fallbackExtension: '.png' };
    if (!asset.post) return save([{ ...file, bytes: generated.assetBytes }]);
    // Downloaded as the kept original, then processed into the output (./post.ts).
    const [original] = await save([{ ...file, bytes: generated.assetBytes }], `${path.join(root, originalsFolder(asset.id))}${path.sep}`);
    status('post-processing');
    const previous = item.files.filter((entry) => entry.state === 'ok').map((entry) => entry.path);
    const expected = hashes.get(path.resolve(original));
    const result = await processOriginal(root, asset, lockPath(root, original), { claims, previous, expected });
    Object.assign(made.processed, { original: result.original, post: result.post });
    return result.files.map((entry) => {
      hashes.set(path.resolve(root, entry.path), { sha256: entry.sha256, size: entry.size });
      return entry.path;
    });
  }

  if (asset.kind === 'workflow') {
    const { jobId, initial } = await submitJob((options) => client.runWorkflow(asset.workflow!, asset.set, options));
    const done = await followRun(ctx, client, targetFor(ctx, 'run', jobId, { output }), initial);
    return save(runOutputFiles(done, asset.id));
  }

  const { jobId, initial } = await submitJob((options) =>
    client.createVideo(
      { prompt: asset.prompt!, agentId: asset.agent, durationSeconds: asset.duration, aspectRatio: asset.aspectRatio },
      options,
    ),
  );
  const job = await followVideo(ctx, client, targetFor(ctx, 'video', jobId, { output }), initial);
  return save([videoOutputFile(job, asset.id)]);
}

/**
 * The client one asset uses: each answer's charge counted against its reservation, and each poll
 * asked of the budget first (a refusal stops the wait, the job kept). Polls get their answer
 * through Ctrl-C (the grace signal), so a charged poll is never lost from the count.
 */
function budgetedClient(run: AssetRun, reservation: Reservation): AssetgenClient {
  const { client, budget, requestSignal } = run;
  const counted = <T extends { credits: Credits }>(answer: T): T => {
    reservation.charged(answer.credits.charged ?? 0);
    return answer;
  };
  const poll = async <T extends { credits: Credits }>(call: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const refusal = reservation.allow(budget.pollPrice);
    if (refusal) throw new CapReached(refusal);
    const answer = counted(await call(AbortSignal.any([requestSignal])));
    budget.learnPollPrice(answer.credits.charged ?? 0);
    return answer;
  };
  const getRun = (id: string) => poll((signal) => client.getRun(id, { signal }));
  const getVideo = (id: string) => poll((signal) => client.getVideo(id, { signal }));
  return {
    ...client,
    generate: async (request, options) => counted(await client.generate(request, options)),
    runWorkflow: async (id, set, options) => counted(await client.runWorkflow(id, set, options)),
    createVideo: async (request, options) => counted(await client.createVideo(request, options)),
    getRun,
    getVideo,
    waitForRun: (id, options) => waitForRun(getRun, id, options),
    waitForVideo: (id, options) => waitForVideo(getVideo, id, options),
  };
}

/** `-o` as the single commands take it (absolute: the manifest's paths are relative to its folder): a file, or a folder with a trailing slash. */
function outputOption(asset: ManifestAsset, root: string): string {
  return asset.out.type === 'file' ? path.join(root, asset.out.path) : `${path.join(root, asset.out.dir)}${path.sep}`;
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

/**
 * --prune: only the files the lock says assetgen made and that nobody changed (the plan checked),
 * deleted by the confinement rule: never through a link, never outside the project.
 */
export async function pruneAsset(run: AssetRun, item: PlanItem): Promise<ItemResult> {
  try {
    for (const file of item.prunable) removeInside(run.root, file);
  } catch (error) {
    return { id: item.id, outcome: 'failed', files: [], credits: 0, reason: error instanceof Error ? error.message : String(error) };
  }
  await run.writer.forget(item.id);
  return { id: item.id, outcome: 'pruned', files: item.prunable, credits: 0 };
}
