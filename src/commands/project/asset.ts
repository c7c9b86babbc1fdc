// One asset of a build: submit (or resume), wait, save, record — every charged call asked of the
// credit budget first, every charge recorded in the lock with the job, so a resume adds to it.
import path from 'node:path';
import { Writable } from 'node:stream';
import {
  AbortedError,
  ApiError,
  AssetgenError,
  AuthenticationError,
  ChargedAnswerLostError,
  InsufficientCreditsError,
  JobFailedError,
  RateLimitError,
  UnexpectedResponseError,
} from '../../client/errors.js';
import { waitForRun, waitForVideo } from '../../client/poll.js';
import type { AssetgenClient, CallOptions, Credits, SignalOptions } from '../../client/types.js';
import type { CommandContext } from '../../cli/context.js';
import type { CreditTally } from '../../cli/credits.js';
import { chargeOfAnswer, priceOfAnswer } from './build-prices.js';
import { followRun, followVideo, runOutputFiles, targetFor, videoOutputFile } from '../../cli/follow.js';
import { paidCall } from '../../cli/idempotency.js';
import { saveOutputs, type OutputFile } from '../../cli/save.js';
import { describeRefusal, type CapRefusal, type Reservation } from '../../pipeline/budget.js';
import { describeFiles, hashFile, idempotencyKeyFor, lockPath, sha256, specParts } from '../../pipeline/hash.js';
import type { FileHash, LockedFile, LockEntry, ManifestAsset, PlanItem } from '../../pipeline/records.js';
import type { LockWriter, Processed, Submission } from '../../pipeline/writer.js';
import { originalsFolder } from '../../pipeline/post.js';
import { processOriginal } from './post.js';
import type { AssetRun, ItemResult, Outcome, ServiceRefusal } from './records.js';
import {
  discardTemp,
  makeTempInside,
  moveIntoPlace,
  fileIdentity,
  PathRefusedError,
  placeIn,
  placeToWrite,
  readRegularFile,
  removeInside,
  streamRegularFile,
  writeFileInside,
  type MadeTemp,
} from '../../files/confine.js';
import { LocalFileError } from '../../config/errors.js';
import { candidatesFolder, pickedTake, takeOf, takePath } from '../../pipeline/takes.js';
import { inTarget } from '../../pipeline/paths.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { buildFailure } from '../../pipeline/errors.js';

/** The budget refused the asset's next charged call: it stops there, its paid job kept in the lock. */
class CapReached extends Error {
  constructor(
    readonly refusal: CapRefusal,
    run: AssetRun,
  ) {
    super(describeRefusal(refusal, run.capName));
  }
}

/** The paid image was saved as the asset's original, then its post steps (or the output's write) failed. */
class PostStepsFailed extends Error {
  constructor(
    readonly original: LockedFile,
    cause: unknown,
    /** The service's id of the paid image's generation, when it gave one. */
    readonly generationId?: string,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${why}; the paid image is kept as ${original.path}: a build re-processes it from there, with no paid call`, { cause });
  }
}

/**
 * Each build's first refusal of its credentials or credits (by its lock's writer, one per paid
 * build): every asset not started yet is then left alone, and the build exits 4 or 5 (build.ts).
 */
const refusals = new WeakMap<LockWriter, ServiceRefusal>();

/** The service's first refusal of the credentials or the credits in the build writing through `writer`, if any. */
export function serviceRefusal(writer: LockWriter): ServiceRefusal | undefined {
  return refusals.get(writer);
}

/** Notes a refusal of the credentials or the credits: no call of the build gets past it, so no asset starts after it. */
function noteRefusal(run: AssetRun, error: unknown): void {
  if ((error instanceof AuthenticationError || error instanceof InsufficientCreditsError) && !refusals.has(run.writer))
    refusals.set(run.writer, error);
}

/** Why an asset was not started after the service's refusal (`skipped`, as after --fail-fast). */
function notStartedAfter(refusal: ServiceRefusal): string {
  return refusal instanceof AuthenticationError
    ? 'not started: the service refused the credentials'
    : 'not started: the account has too few credits';
}

/** Stopped between takes by another asset's refusal: the takes made are kept in the lock, the last one as its job. */
class StoppedByRefusal extends AssetgenError {
  constructor(message: string) {
    super(message, { code: 'stopped' });
  }
}

/**
 * Paid calls the service refused outright (a 4xx answer: nothing done, nothing charged) and whose
 * record was taken back from the lock: nothing is pending for them, nothing to resume. A 409 (the
 * key's first call still running) and a 429 say nothing of that, nor does a 5xx or a lost answer.
 */
const takenBack = new WeakSet<object>();
const refusedOutright = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 409 && !(error instanceof RateLimitError);

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
  // The service refused the build's credentials or credits: the next paid call would be refused too.
  const refused = refusals.get(run.writer);
  if (refused) return { id: item.id, outcome: 'skipped', files: [], credits: 0, reason: notStartedAfter(refused) };
  const quiet = run.ctx.forCall({
    onJobProgress: (update) => progress.status(sanitizeLine(update.message)),
    io: { ...run.ctx.io, stdout: discard(), stdoutIsTTY: false, stderrIsTTY: false },
    // Its own signal (aborted with the build's): each request listens to it while in flight, and
    // sixteen assets listening to one signal would pass node's listener warning threshold.
    signal: AbortSignal.any([run.ctx.signal]),
    globals: { quiet: true, json: false },
  });
  const tally = quiet.credits;
  /**
   * A charged poll was out when the wait stopped (Ctrl-C, --timeout, a dropped connection), or an
   * answered poll's earlier attempt got no answer (Credits.unknownCharges): its charge is not known.
   */
  const polls = { unknownCharge: false };
  const paidCalls: PaidCalls = { price: (item.takes ? item.takePrice : item.estimate) ?? 0, unstated: false };
  /** The job's charges so far: what the lock recorded before this build, plus this build's (null: not known). */
  const jobCredits = (): number | null => {
    const base = recordedCharge(item, tally.paidEarlier, paidCalls.unstated);
    return base === null || polls.unknownCharge ? null : base + tally.report.charged;
  };
  try {
    // Its `out` moved: the old outputs go once the new ones are recorded, if unchanged.
    const former = formerOutputs(run, item);
    const job: Production = {
      ctx: quiet,
      run,
      client: budgetedClient(run, item, reservation, jobCredits, { polls, paidCalls }),
      item,
      asset: item.asset!,
      hashes: new Map(),
      processed: {},
      status: progress.status,
      jobCredits,
      reservation,
      paidCalls,
    };
    const paths = await quiet.spendOn(() => produce(job));
    const files = await describeFiles(run.root, paths, job.hashes);
    progress.saved();
    const { charged, refunded } = tally.report;
    const paid = jobCredits();
    const cost = paid === null ? null : paid - refunded;
    await run.writer.finished(item.id, { files, credits: cost, ...job.processed, generationId: job.generationId });
    await removeFormer(run.root, former, files);
    const outcome = item.action === 'resume' ? 'resumed' : 'built';
    // `cost` is the asset's whole cost as the lock now records it (with takes: every take's, those
    // of earlier builds too), not this call's job alone.
    const recorded = run.writer.entry(item.id);
    const whole = recorded && recorded.credits !== undefined ? recorded.credits : cost;
    const warnings = job.warnings ? { warnings: job.warnings } : {};
    return { id: item.id, outcome, files: files.map((f) => f.path), credits: charged - refunded, cost: whole, ...warnings };
  } catch (error) {
    return await recordFailure(run, item, { error, tally, reservation, jobCredits });
  } finally {
    await quiet.cleanup();
  }
}

/** An asset that did not finish: what the lock keeps of its paid job, and its result. */
async function recordFailure(
  run: AssetRun,
  item: PlanItem,
  failure: { error: unknown; tally: CreditTally; reservation: Reservation; jobCredits: () => number | null },
): Promise<ItemResult> {
  const { ctx, writer } = run;
  const { error, reservation } = failure;
  // What was charged is in the build's tally already (the shared client reports to it); a
  // refund is known only to the asset's context — one the service's answer stated, made while this
  // build watched the job (cli/follow.ts refundSeen) — and only such a refund frees the cap.
  const { charged, refunded } = failure.tally.report;
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
    // A post step's failure is its cause's (the kept original fails the same way until the steps change).
    ...(outcome === 'failed' ? { error: buildFailure(error instanceof PostStepsFailed ? error.cause : error) } : {}),
  });
  // Refused outright (credentials, credits, a bad request): its record was taken back, nothing to resume.
  if (takenBack.has(error as object)) return result('failed', (error as ApiError).message, false);
  // The service gave up (and refunds a video): nothing to resume; the next build tries again. A job
  // that succeeded without its file is charged and not refunded: kept, so no build pays for it twice.
  if (error instanceof JobFailedError && error.code !== 'job_empty') {
    await writer.failed(item.id);
    return result('failed', error.message, false);
  }
  const paid = failure.jobCredits();
  // The job is done and its image kept: recorded as such, the next build re-processes it for free.
  if (error instanceof PostStepsFailed) {
    const { original, generationId } = error;
    const recorded = await writer.postFailed(item.id, { credits: paid === null ? null : paid - refunded, original, generationId }).then(
      () => true,
      () => false,
    );
    if (recorded) return result('failed', error.message, false);
  }
  // The paid job stays in the lock with what it was charged so far: a resume adds to that. (Each
  // take's charge is recorded with the take; the take in flight's answer is not known.)
  if (paid !== null && paid > 0 && !item.takes) await writer.charged(item.id, paid).catch(() => {});
  if (error instanceof CapReached) return { ...result('capped', error.message), refusal: error.refusal };
  // The reason follows the outcome on its line (`- torch  interrupted: its paid job …`), as for every outcome.
  if (error instanceof AbortedError || ctx.signal.aborted) return result('interrupted', 'its paid job is kept in assetgen.lock');
  const reason = error instanceof AssetgenError ? error.message : String(error);
  // Whatever was paid is in the lock (job id or idempotency key): building again resumes it.
  return result('failed', reason);
}

/**
 * What the job had been charged before this build's own charges (the tally's): a resume of a job
 * whose charge was recorded adds to it; a job recorded by an older assetgen (an id, no charge) is
 * unknown. Otherwise this build's paid call says: a fresh answer's charge is this build's own (0
 * here), a replay's is what it restates of the call that paid (`paidEarlier`); a replay that does
 * not restate it (`unstated`: PaidCalls) leaves the cost not known (null), never 0.
 */
function recordedCharge(item: PlanItem, paidEarlier: number | undefined, unstated: boolean): number | null {
  if (item.action === 'resume' && item.job?.credits !== undefined) return item.job.credits;
  if (item.action === 'resume' && item.job?.jobId) return null;
  if (unstated) return null;
  return paidEarlier ?? 0;
}

/**
 * An asset's paid calls in this build (its submission, or each take): what the cap holds for the
 * one in flight, and whether an answer did not say what its key was charged (priceOfAnswer: a
 * replay that does not restate its original charge, or a service that says nothing).
 */
interface PaidCalls {
  /** The credits the cap holds for the paid call in flight: the asset's estimate, or one take's price. */
  price: number;
  /** An answer did not say its charge: the asset's cost is not known, and the cap counted `price` for it. */
  unstated: boolean;
}

/** One asset's making: its context and client, and what it fills in for the lock. */
interface Production {
  /** The asset's own quiet context (its spending counted apart). */
  ctx: CommandContext;
  run: AssetRun;
  /** The budgeted client (budgetedClient). */
  client: AssetgenClient;
  item: PlanItem;
  asset: ManifestAsset;
  /** Filled with each saved file's hash, taken while it was written. */
  hashes: Map<string, FileHash>;
  /** Filled with what post-processing made. */
  processed: Processed;
  /** What post-processing said of the image it made (./post.ts ProcessedFiles). */
  warnings?: string[];
  /** An image: the service's id of its generation (a safe id, or none: client/normalize.ts). */
  generationId?: string;
  status: (text: string) => void;
  jobCredits: () => number | null;
  /** The asset's share of the credit budget: each take asks it before its call. */
  reservation: Reservation;
  /** Its paid calls in this build: a take sets the price the cap holds for it. */
  paidCalls: PaidCalls;
}

/** The paid call and the saves of one asset, with its key and its lock records. */
interface PaidSteps {
  /** What the lock records before the paid call. */
  submission: Submission;
  /** Records `submission` in the lock before the paid call; a refusal of the call takes it back (`pay`). */
  record(): Promise<void>;
  /** `-o` for its files. */
  output: string;
  /** Saves files (to `output`, or `to`); each one claimed for the asset and hashed as written. */
  save(files: OutputFile[], to?: string): Promise<string[]>;
  /**
   * The paid call, with the asset's key, under the grace signal. Refused outright (a 4xx), the
   * record made by `record` is taken back: the lock says no more than before the call.
   */
  pay<T extends { credits: Credits }>(call: (options: CallOptions) => Promise<T>): Promise<T>;
  /**
   * A job's paid call (a run, a video), unless the lock has its id already; the job is recorded as
   * soon as the service answers, with its id and what it has been charged.
   */
  submitJob<T extends { id: string; credits: Credits }>(
    call: (options: CallOptions) => Promise<T>,
  ): Promise<{ jobId: string; initial?: T }>;
}

/** Makes the asset's files (paid call, wait, save, post-processing); their project paths. */
async function produce(job: Production): Promise<string[]> {
  if (job.item.takes) return produceTakes(job);
  const steps = paidSteps(job);
  // Recorded before the paid call: a crash between paying and answering leaves the key to ask again with.
  if (!job.item.job?.jobId) await steps.record();
  if (job.asset.kind === 'image') return produceImage(job, steps);
  if (job.asset.kind === 'workflow') return produceRun(job, steps);
  return produceVideo(job, steps);
}

/** The paid steps of the asset, or of its take `take` (each take has its own key: hash.ts idempotencyKeyFor). */
function paidSteps(job: Production, take?: number): PaidSteps {
  const { ctx, run, client, item } = job;
  const { root, claims, writer } = run;
  const generation = item.job ? item.job.generation : (item.generation ?? 1);
  // The job in flight keeps the key it was sent with; another take of it has its own.
  const inFlight = item.job && (take === undefined || item.job.take === take);
  const key = inFlight ? item.job!.idempotencyKey : idempotencyKeyFor(item.id, item.spec, generation ?? 1, take);
  // Sent for the first time by this build: a replay after a lost attempt is then this build's own charge.
  const keyIsNew = take === undefined ? !item.job && !item.reusesKey : !inFlight && !takeOf(run.writer.entry(item.id), take);
  const submission = {
    spec: item.spec,
    specParts: specParts(job.asset),
    kind: item.kind,
    agent: item.agent,
    workflow: item.workflow,
    idempotencyKey: key,
    generation,
    take,
  };
  const output = outputOption(job.asset, root);
  // The paid call's own signal waits out the grace period: at Ctrl-C its answer (the job id, the charge) still arrives.
  const paidSignal = AbortSignal.any([run.requestSignal]);
  /** The asset's lock entry as it was before `record` (the job in flight then, if any). */
  let before: { entry: LockEntry | undefined } | undefined;
  const steps: PaidSteps = {
    submission,
    record: async () => {
      before = { entry: writer.entry(item.id) };
      await writer.submitted(item.id, submission);
    },
    output,
    save: (files, to = output) => {
      job.status(files.length === 1 ? 'saving' : `saving ${files.length} files`);
      return saveOutputs(ctx, client, files, {
        output: to,
        force: true,
        root,
        refuse: (file) => claims.claim(lockPath(root, file), item.id),
        onSaved: (saved) => job.hashes.set(path.resolve(saved.path), { sha256: saved.sha256, size: saved.size }),
      });
    },
    pay: async (call) => {
      try {
        return await paidCall(ctx, key, (options) => call({ signal: paidSignal, ...options }), keyIsNew);
      } catch (error) {
        if (before && refusedOutright(error) && (await takeBack(writer, item.id, before.entry))) takenBack.add(error);
        throw error;
      }
    },
    submitJob: async (call) => {
      if (item.job?.jobId) return { jobId: item.job.jobId };
      const initial = await steps.pay(call);
      await writer.submitted(item.id, { ...submission, jobId: initial.id, credits: job.jobCredits() ?? undefined });
      return { jobId: initial.id, initial };
    },
  };
  return steps;
}

/**
 * A paid call refused outright: the service did nothing for it and keeps no answer for its key, so
 * the lock's entry goes back to what it said before the call was recorded — no entry, no job, or
 * the job in flight then (an earlier call whose answer was lost, or the last take made), which the
 * next build resumes as before — keeping what changed meanwhile (a new generation's takes dropped).
 * True when nothing is left pending for the asset; false when a job is (or the write failed: the
 * record stays, and the next build asks again with its key, as for any call without an answer).
 */
async function takeBack(writer: LockWriter, id: string, before: LockEntry | undefined): Promise<boolean> {
  const now = writer.entry(id);
  if (!now?.job) return !before?.job;
  const { job: _refused, ...rest } = now;
  // The writer's one way to set an entry whole (made for a packed sheet, whose entry is all new).
  const undo = before ? writer.packed(id, before.job ? { ...rest, job: before.job } : rest) : writer.forget(id);
  return undo.then(
    () => !before?.job,
    () => false,
  );
}

async function produceImage(job: Production, steps: PaidSteps): Promise<string[]> {
  const { asset, client, run } = job;
  const generated = await steps.pay((options) => client.generate({ agentId: asset.agent!, prompt: asset.prompt! }, options));
  job.generationId = generated.id;
  const file = { url: generated.assetUrl, stem: asset.id, contentType: generated.contentType, fallbackExtension: '.png' };
  if (!asset.post) return steps.save([{ ...file, bytes: generated.assetBytes }]);
  // Downloaded as the kept original, then processed into the output (./post.ts).
  const keptIn = `${path.join(run.root, originalsFolder(asset.id))}${path.sep}`;
  const [original] = await steps.save([{ ...file, bytes: generated.assetBytes }], keptIn);
  return postProcess(job, original);
}

/**
 * An image's missing takes (pipeline/takes.ts), one paid call after another (an asset's takes are
 * not made at once; -j runs assets side by side): each asked of the budget, recorded with its key
 * before its call, saved as .assetgen/candidates/<id>/<k>.<ext> and listed in the lock with what it
 * cost. The output is then made from the picked take (take 1 until `assetgen pick`), as from a kept original.
 */
async function produceTakes(job: Production): Promise<string[]> {
  const { run, item, asset, client } = job;
  const { root, writer } = run;
  await startTakes(job);
  const folder = `${path.join(root, candidatesFolder(item.id))}${path.sep}`;
  let price = item.takePrice ?? 0;
  for (const k of item.takes!) {
    // After a take of this build, another asset's call was refused the credentials or the credits: no further paid call.
    const refused = k === item.takes![0] ? undefined : refusals.get(run.writer);
    if (refused) throw new StoppedByRefusal(`stopped before take ${k}: ${refused.message}`);
    // Its agent charged more than `prices:` declares (an earlier take, or another asset): no further call.
    const refusal = run.prices.refusal(item) ?? job.reservation.allow(price);
    if (refusal) throw new CapReached(refusal, run);
    job.status(`take ${k} of ${item.takes!.at(-1)}: generating with ${asset.agent}`);
    const steps = paidSteps(job, k);
    await steps.record();
    // An answer that does not say its charge is counted against the cap at this price (budgetedClient).
    job.paidCalls.price = price;
    const generated = await steps.pay((options) => client.generate({ agentId: asset.agent!, prompt: asset.prompt! }, options));
    const file = { url: generated.assetUrl, stem: String(k), contentType: generated.contentType, fallbackExtension: '.png' };
    const [saved] = await steps.save([{ ...file, bytes: generated.assetBytes }], folder);
    // A replay's charge is the call that paid for it: each take's figure is what its key cost, null
    // when its answer does not say (a replay that does not restate it: never 0).
    const credits = chargeOfAnswer(generated.credits) ?? null;
    price = Math.max(price, priceOfAnswer(generated.credits) ?? 0);
    const made = generated.id === undefined ? {} : { generationId: generated.id };
    await writer.tookTake(item.id, { k, file: lockPath(root, saved), ...job.hashes.get(path.resolve(saved))!, credits, ...made });
  }
  const entry = writer.entry(item.id)!;
  const picked = takeOf(entry, pickedTake(entry)) ?? entry.candidates![0];
  job.hashes.set(path.resolve(root, picked.file), { sha256: picked.sha256, size: picked.size });
  return postProcess(job, path.join(root, picked.file));
}

/**
 * Before a take is paid for: a new generation removes the last one's take files (assetgen's own,
 * named in the plan's reasons); an asset built before it had takes makes its finish take 1, free.
 */
async function startTakes(job: Production): Promise<void> {
  const { run, item } = job;
  const { root, writer } = run;
  const entry = writer.entry(item.id);
  const generation = item.job?.generation ?? item.generation ?? 1;
  if (entry?.candidates && (entry.job?.generation ?? entry.generation ?? 1) !== generation)
    for (const take of entry.candidates) removeInside(root, take.file);
  if (!entry?.spec || entry.candidates || entry.spec !== item.spec || (entry.generation ?? 1) !== generation || item.takes!.includes(1))
    return;
  const source = entry.original ?? (entry.files.length === 1 ? entry.files[0] : undefined);
  if (!source) return;
  const bytes = await readRegularFile(path.join(root, source.path), source.path);
  if (sha256(bytes) !== source.sha256 || bytes.length !== source.size)
    throw new LocalFileError(
      path.join(root, source.path),
      `${source.path} is not the file assetgen.lock records: it cannot become take 1 (nothing was paid for).`,
      'Build again: the plan then says what to do with it.',
    );
  const file = takePath(item.id, 1, path.posix.extname(source.path));
  await writeFileInside(root, file, bytes);
  await writer.tookTake(item.id, { k: 1, file, sha256: source.sha256, size: source.size, credits: entry.credits ?? null });
  // Its kept original now lives on as take 1 (where post steps run from).
  if (entry.original) removeInside(root, entry.original.path);
}

/** The paid image, saved as the original at `original`, processed into the output; a failure keeps it (PostStepsFailed). */
async function postProcess(job: Production, original: string): Promise<string[]> {
  const { root, claims } = job.run;
  job.status('post-processing');
  const previous = job.item.files.filter((entry) => entry.state === 'ok').map((entry) => entry.path);
  const source = lockPath(root, original);
  const expected = job.hashes.get(path.resolve(original));
  const result = await processOriginal(root, job.asset, source, { claims, previous, expected }).catch((error: unknown) => {
    throw expected ? new PostStepsFailed({ path: source, ...expected }, error, job.generationId) : error;
  });
  Object.assign(job.processed, { original: result.original, post: result.post, trim: result.trim, trims: result.trims });
  job.warnings = result.warnings;
  return result.files.map((entry) => {
    job.hashes.set(path.resolve(root, entry.path), { sha256: entry.sha256, size: entry.size });
    return entry.path;
  });
}

async function produceRun(job: Production, steps: PaidSteps): Promise<string[]> {
  const { ctx, client, asset } = job;
  const { jobId, initial } = await steps.submitJob((options) => client.runWorkflow(asset.workflow!, asset.set, options));
  const done = await followRun(ctx, client, targetFor(ctx, 'run', jobId, { output: steps.output }), initial);
  return steps.save(runOutputFiles(done, asset.id));
}

async function produceVideo(job: Production, steps: PaidSteps): Promise<string[]> {
  const { ctx, client, asset } = job;
  const { jobId, initial } = await steps.submitJob((options) =>
    client.createVideo(
      { prompt: asset.prompt!, agentId: asset.agent, durationSeconds: asset.duration, aspectRatio: asset.aspectRatio },
      options,
    ),
  );
  const video = await followVideo(ctx, client, targetFor(ctx, 'video', jobId, { output: steps.output }), initial);
  return steps.save([videoOutputFile(video, asset.id)]);
}

/**
 * The client one asset uses: each answer's charge counted against its reservation, and each poll
 * asked of the budget first (a refusal stops the wait, the job kept). Polls get their answer
 * through Ctrl-C (the grace signal), so a charged poll is never lost from the count. Each poll is
 * journalled too: the job's charge is recorded as unknown while the poll is out and as the new
 * total once it is answered, so a build killed (kill -9) while waiting leaves the exact total for
 * its resume, and one killed during a poll leaves "not known", never a figure short of the ledger.
 * A poll whose charge is not known (stopped while out, or answered after attempts that got none)
 * leaves the job's total not known for good, and the cap counts a poll's price for each such charge.
 */
function budgetedClient(
  run: AssetRun,
  item: PlanItem,
  reservation: Reservation,
  jobCredits: () => number | null,
  { polls, paidCalls }: { polls: { unknownCharge: boolean }; paidCalls: PaidCalls },
): AssetgenClient {
  const { client } = run;
  /** A call's answer; a refusal of the credentials or the credits is noted for the whole build (no asset starts after it). */
  const heard = async <T>(call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } catch (error) {
      noteRefusal(run, error);
      throw error;
    }
  };
  /**
   * A paid call's answer, counted. One that does not say what its key was charged (a replay that
   * does not restate its original charge: priceOfAnswer) counts at the price the cap held for the
   * call, as if this build paid it (it may have: a retry after its first attempt's answer was lost),
   * so the ledger never passes the cap; the asset's cost is then not known (recordedCharge).
   */
  const counted = <T extends { credits: Credits }>(answer: T): T => {
    reservation.charged(answer.credits.charged ?? 0);
    if (chargeOfAnswer(answer.credits) === undefined) {
      paidCalls.unstated = true;
      reservation.charged(paidCalls.price);
    }
    // A replay after this call's own attempt got no answer, its key sent before (a pending job's):
    // the charge it restates may have been this build's (Credits.unknownCharges), so the cap counts it.
    else if (answer.credits.unknownCharges) reservation.charged(answer.credits.paidEarlier ?? 0);
    return answer;
  };
  /** A paid call's answer: counted, and what it says one call of the asset's agent or workflow costs learned. */
  const priced = <T extends { credits: Credits }>(answer: T): T => {
    counted(answer);
    run.prices.answered(item, answer.credits);
    return answer;
  };
  const poll = <T extends { credits: Credits }>(call: (options: SignalOptions) => Promise<T>): Promise<T> =>
    pollWithinBudget({ run, item, reservation, jobCredits, polls }, call);
  const getRun = (id: string) => poll((options) => heard(client.getRun(id, options)));
  const getVideo = (id: string) => poll((options) => heard(client.getVideo(id, options)));
  const paid = paidWithinBudget(run, reservation, paidCalls);
  return {
    ...client,
    generate: async (request, options) => priced(await paid((o) => heard(client.generate(request, o)), options)),
    runWorkflow: async (id, set, options) => priced(await paid((o) => heard(client.runWorkflow(id, set, o)), options)),
    createVideo: async (request, options) => counted(await paid((o) => heard(client.createVideo(request, o)), options)),
    getRun,
    getVideo,
    waitForRun: (id, options) => waitForRun(getRun, id, options),
    waitForVideo: (id, options) => waitForVideo(getVideo, id, options),
  };
}

/**
 * An asset's paid submission within the cap. One whose answer was lost (or refused) after the
 * service charged is counted all the same. Its own retry after an attempt whose headers said it was
 * charged is free if the service honours the key (a replay) and charged again if not (its document
 * does not promise it), so it is asked of the cap first, for that charge and one more call; refused,
 * the asset is capped (the cap, not the service, ended it), its key kept for the next build.
 */
function paidWithinBudget(run: AssetRun, reservation: Reservation, paidCalls: PaidCalls) {
  return async <T, O extends SignalOptions>(call: (options: O) => Promise<T>, options: O | undefined): Promise<T> => {
    let retryRefused: CapRefusal | undefined;
    const mayRetry = (_unanswered: number, chargedThenLost: number): boolean => {
      if (chargedThenLost <= 0) return true;
      retryRefused = reservation.allow(chargedThenLost + paidCalls.price);
      return retryRefused === undefined;
    };
    try {
      return await call({ ...options, mayRetry } as O);
    } catch (error) {
      if (error instanceof ChargedAnswerLostError) reservation.charged(error.credits.charged);
      // An answer refused as a protocol error whose headers said what was charged: taken all the same.
      else if (error instanceof UnexpectedResponseError && error.charged) reservation.charged(error.charged);
      if (retryRefused !== undefined) throw new CapReached(retryRefused, run);
      throw error;
    }
  };
}

/**
 * `count` charges of an asset's polls not known: the service may have taken them. The lock keeps
 * "not known" (written before the poll: budgetedClient), and the cap counts each at a poll's price.
 * Not when polls are known to be free: with a session, or at a price learned as 0. (The build's
 * credits have them already: the client reports them to onCredits, answered or failed.)
 */
function pollChargesNotKnown(run: AssetRun, reservation: Reservation, polls: { unknownCharge: boolean }, count: number): void {
  if (!run.pollsCharged || run.budget.pollPrice <= 0) return;
  polls.unknownCharge = true;
  reservation.charged(count * run.budget.pollPrice);
}

/**
 * One poll of a paid job within the build's cap: asked of the budget first (each retry the client
 * makes of it too), its answer counted and journalled, its charge not known when an attempt got no
 * answer (the lock's cost then stays not known, and the cap counts a poll's price for each).
 */
async function pollWithinBudget<T extends { credits: Credits }>(
  asset: { run: AssetRun; item: PlanItem; reservation: Reservation; jobCredits: () => number | null; polls: { unknownCharge: boolean } },
  call: (options: SignalOptions) => Promise<T>,
): Promise<T> {
  const { run, item, reservation, jobCredits, polls } = asset;
  const { budget, requestSignal } = run;
  const refusal = reservation.allow(budget.pollPrice);
  if (refusal) throw new CapReached(refusal, run);
  // A poll whose charge is known before its answer (none: with a session, or a price learned as 0)
  // leaves the job's total as it is, so a kill during it leaves that total exact, not unknown.
  if (run.pollsCharged && budget.pollPrice > 0) await run.writer.charged(item.id, null);
  let answer: T;
  let unknown = 0;
  let retryRefused: CapRefusal | undefined;
  try {
    answer = await call({
      signal: AbortSignal.any([requestSignal]),
      // Per call: a failed poll's attempts with no answer (stopped, the connection lost, cut short).
      onUnanswered: (attempts) => (unknown = attempts),
      // The client's own retry of this poll is a poll too, and each attempt with no answer may
      // have been charged: it goes only if those and one more fit the cap.
      mayRetry: (unanswered) => {
        retryRefused = reservation.allow(budget.pollPrice * (unanswered + 1));
        return retryRefused === undefined;
      },
    });
  } catch (error) {
    // Attempts with no answer: the service may still charge each.
    if (unknown > 0) pollChargesNotKnown(run, reservation, polls, unknown);
    // Charged, its answer lost: counted like an answer (the wait asks again, through allow above).
    if (error instanceof ChargedAnswerLostError) {
      reservation.charged(error.credits.charged);
      budget.learnPollPrice(error.credits.charged);
      await run.writer.charged(item.id, jobCredits());
    } else if (error instanceof UnexpectedResponseError && error.charged) reservation.charged(error.charged);
    // The cap, not the service, ended this poll: the asset is capped (its job kept), as when the
    // cap refuses a poll before it is sent.
    if (retryRefused !== undefined) throw new CapReached(retryRefused, run);
    throw error;
  }
  reservation.charged(answer.credits.charged ?? 0);
  budget.learnPollPrice(answer.credits.charged ?? 0);
  // Answered after attempts that got no answer (the client asked again): each may have been charged.
  if (answer.credits.unknownCharges) pollChargesNotKnown(run, reservation, polls, answer.credits.unknownCharges);
  await run.writer.charged(item.id, jobCredits());
  return answer;
}

/** `-o` as the single commands take it (absolute: the manifest's paths are relative to its folder): a file, or a folder with a trailing slash. */
function outputOption(asset: ManifestAsset, root: string): string {
  return asset.out.type === 'file' ? path.join(root, asset.out.path) : `${path.join(root, asset.out.dir)}${path.sep}`;
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

/**
 * The plan's `move` (docs/build.md "Planning"): an asset whose `out` moved, put at its new paths
 * with the bytes the lock records — no paid call, nothing charged. Each new file is made in full
 * beside its place by the confinement rule, its bytes checked against the lock on the way (a file
 * changed since the plan is never used: the asset fails, nothing written), then moved into place
 * where nothing has appeared since the plan (a new path that holds the recorded bytes already is
 * kept as it is). The lock then records the new paths, with the same hashes, cost, job and
 * generation ids; and each old file goes if it is still as the lock recorded it (the prune rule:
 * assetgen made it, nobody changed it), its bytes now at the new path.
 */
export async function moveAsset(run: AssetRun, item: PlanItem): Promise<ItemResult> {
  const made: MadeTemp[] = [];
  try {
    const recorded = run.writer.entry(item.id)?.files ?? [];
    const files = await copyMoved(run, item, recorded, made);
    for (const temp of made)
      if (!(await moveIntoPlace(temp.temp, temp.target, false)))
        throw new PathRefusedError(
          `${temp.path} appeared while ${item.id} was being moved there: left alone, the move not recorded.`,
          'Build again: the plan then says what to do with it.',
        );
    // The old files go before the lock records the new ones: a build stopped in between finds the
    // bytes at their new place and only records them, where one stopped after the record could
    // never delete them (the lock no longer names them).
    const former = recorded.filter((file) => item.moves?.some((move) => move.from === file.path));
    await removeFormer(run.root, former, files);
    const entry = run.writer.entry(item.id);
    // What the steps made stays recorded with the files (a processed output moves as it is).
    await run.writer.reprocessed(item.id, { files, original: entry?.original, post: entry?.post, trim: entry?.trim, trims: entry?.trims });
    return { id: item.id, outcome: 'built', files: files.map((file) => file.path), credits: 0 };
  } catch (error) {
    await Promise.all(made.map((temp) => discardTemp(temp.temp)));
    const reason = error instanceof Error ? error.message : String(error);
    return { id: item.id, outcome: 'failed', files: [], credits: 0, reason, error: buildFailure(error) };
  }
}

/**
 * The new files of a move, each claimed for the asset (never over another asset's output) and made
 * as a temp file beside its place from the old one (`made`), unless the recorded bytes are there
 * already; what the lock records of them (`recorded`: the entry's files, whose bytes they are).
 */
async function copyMoved(run: AssetRun, item: PlanItem, recorded: readonly LockedFile[], made: MadeTemp[]): Promise<LockedFile[]> {
  const { root } = run;
  const files: LockedFile[] = [];
  for (const move of item.moves ?? []) {
    const was = recorded.find((file) => file.path === move.from);
    if (!was) throw new LocalFileError(path.join(root, move.from), `${move.from} is not in assetgen.lock any more: not moved.`);
    const refusal = run.claims.claim(move.to, item.id);
    if (refusal) throw new PathRefusedError(refusal, 'Give the assets different outputs.');
    files.push({ path: move.to, sha256: was.sha256, size: was.size });
    // Moved there by a build stopped before its lock said so (or by hand): the bytes are in place.
    if (placeToWrite(root, move.to).entry === 'file' && sameBytes(await hashInside(root, move.to), was)) continue;
    const from = placeIn(root, move.from);
    if (from.entry !== 'file') throw new PathRefusedError(`${move.from} is not a regular file: nothing moved.`);
    const temp = await makeTempInside(root, move.to, streamRegularFile(from.file, move.from));
    made.push(temp);
    if (!sameBytes(temp, was))
      throw new LocalFileError(
        from.path,
        `${move.from} is not the file assetgen.lock records (changed since the plan checked it): not moved, nothing written.`,
        'Build again: the plan then says what to do with it.',
      );
  }
  return files;
}

/**
 * The files of an asset's last finish that its `out` no longer covers (it moved), as the lock
 * recorded them: once the asset is finished at its new `out`, each still unchanged goes (removeFormer).
 */
function formerOutputs(run: AssetRun, item: PlanItem): LockedFile[] {
  const out = item.asset?.out;
  if (!out) return [];
  return (run.writer.entry(item.id)?.files ?? []).filter((file) => !inTarget(file.path, item.id, out));
}

/**
 * Once the lock records an asset's new files (`now`): each of its former outputs (formerOutputs)
 * that is not one of them and still holds the bytes the lock recorded goes, by the prune rule
 * (assetgen made it, nobody changed it) and the confinement rule — never when it is one of the new
 * files under another name (`assets/` → `Assets/` on a disk that ignores case, a folder linked to
 * the old one). One edited by hand stays where it is, and so does one the rule refuses to delete.
 */
async function removeFormer(root: string, former: readonly LockedFile[], now: readonly LockedFile[]): Promise<void> {
  const current = new Set(now.map((file) => fileIdentity(root, file.path)));
  for (const file of former) {
    if (now.some((kept) => kept.path === file.path)) continue;
    try {
      const same = fileIdentity(root, file.path);
      if (same === undefined || current.has(same) || !sameBytes(await hashInside(root, file.path), file)) continue;
      removeInside(root, file.path);
    } catch {
      // Left where it is.
    }
  }
}

/** A file's hash inside the project by the confinement rule (null: gone, or not a regular file). */
async function hashInside(root: string, file: string): Promise<FileHash | null> {
  const place = placeIn(root, file);
  return place.entry === 'file' ? hashFile(place.file) : null;
}

const sameBytes = (found: FileHash | null, want: FileHash): boolean => !!found && found.sha256 === want.sha256 && found.size === want.size;

/**
 * --prune: only the files the lock says assetgen made and that nobody changed (the plan checked),
 * deleted by the confinement rule: never through a link, never outside the project.
 */
export async function pruneAsset(run: AssetRun, item: PlanItem): Promise<ItemResult> {
  try {
    for (const file of item.prunable) removeInside(run.root, file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { id: item.id, outcome: 'failed', files: [], credits: 0, reason, error: buildFailure(error) };
  }
  await run.writer.forget(item.id);
  return { id: item.id, outcome: 'pruned', files: item.prunable, credits: 0 };
}

/**
 * --prune-takes: the asset's take files that are not picked and that nobody changed (the plan
 * checked), deleted by the confinement rule; the lock then lists the kept take alone, as picked.
 */
export async function pruneTakes(run: AssetRun, item: PlanItem): Promise<string> {
  const removed: string[] = [];
  let problem: string | undefined;
  try {
    for (const file of item.prunableTakes ?? []) {
      removeInside(run.root, file);
      removed.push(file);
    }
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  if (removed.length) await run.writer.prunedTakes(item.id, removed);
  const done = removed.length ? `takes pruned: ${removed.join(', ')}` : 'no take pruned';
  return `${problem ? '✗' : '✓'} ${sanitizeLine(item.id)}  ${sanitizeLine(problem ? `${done}; ${problem}` : done)}`;
}
