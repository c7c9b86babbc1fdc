// Following a paid job to its end with live progress: a workflow run (one node per poll) or a
// video job. One place journals what happened, adds what the polls cost to the command's tally (a
// poll that got no answer as a charge not known), and makes sure that however the wait ends, the
// error names the job and the command that resumes it.
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import {
  AbortedError,
  ApiError,
  ConnectionError,
  InsufficientCreditsError,
  InvalidArgumentError,
  JobFailedError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
  withHint,
} from '../client/errors.js';
import { waitForRun, waitForVideo } from '../client/poll.js';
import type { AssetgenClient, Run, VideoJob } from '../client/types.js';
import { isObject } from '../client/values.js';
import { isTerminal, requireCallerId } from '../client/normalize.js';
import { sanitizeLine } from '../ui/sanitize.js';
import { startProgress, type Progress } from '../ui/progress.js';
import type { CommandContext } from './context.js';
import { mockEndsWithCommand } from './front-end.js';
import { savedResult, type SavedResult } from './report.js';
import { absoluteOutput, attachJob, resumeCommand, resumeToolCall, type PaidJob, type ResumeTarget } from './resume.js';
import { saveOutputs, type OutputFile } from './save.js';

/**
 * Once a job is paid for, any failure of the command carries the job and its resume command.
 * A failed job has nothing to resume; everything else (poll errors, 402, Ctrl-C, --timeout, a save
 * error) says the job is kept and how to pick it up. `answered`: the service answered for the job in
 * this command (its submission or a poll); else only the journal can say it was paid for (see
 * unconfirmedJob).
 */
export function rememberPaidJob(ctx: CommandContext, error: unknown, target: ResumeTarget, answered: boolean): unknown {
  const effective: unknown = ctx.signal.aborted && !(error instanceof JobFailedError) ? ctx.signal.reason : error;
  // (A failed video job's refund is worded where the wait saw it end: videoFailure.)
  if (effective instanceof JobFailedError) return attachJob(effective, { id: target.id, kind: target.kind, resume: null });
  // An id assetgen refuses to send was never a job of ours.
  if (effective instanceof InvalidArgumentError) return effective;
  const what = target.kind === 'video' ? 'video job' : 'run';
  // An id the service does not know (a typo, another account or service): nothing is kept there
  // and resuming would only ask again.
  if (effective instanceof NotFoundError) {
    withHint(
      effective,
      `The service knows no ${what} ${target.id}: check the id and the base URL (${ctx.frontEnd.lookup('jobs')} lists the jobs started from this machine).`,
    );
    return attachJob(effective, { id: target.id, kind: target.kind, resume: null });
  }
  if (!answered && !journalled(ctx, target)) return unconfirmedJob(ctx, effective, target);
  // "Try again later" would pay again: once a job exists, the advice is to resume it.
  if (effective instanceof ServerError || effective instanceof ConnectionError || effective instanceof RateLimitError)
    effective.hint = undefined;
  if (effective instanceof InsufficientCreditsError && target.kind === 'video') {
    withHint(effective, 'If the job fails, the service refunds its credits by itself.');
  }
  const resume = resumeCommandFor(ctx, target);
  if (endsWithCommand(ctx)) {
    withHint(effective, mockEnds(target));
    return attachJob(effective, { id: target.id, kind: target.kind, resume }, target);
  }
  const why =
    effective instanceof AbortedError || effective instanceof TimeoutError
      ? `The ${what} ${target.id} goes on without us`
      : `The ${what} ${target.id} is paid for and kept`;
  withHint(effective, `${why}; resume with: ${resumeAdvice(ctx, target, resume)}`);
  return attachJob(effective, { id: target.id, kind: target.kind, resume }, target);
}

/**
 * The command that picks a job up later, or null when none can: a job on the in-process bundled
 * mock (--mock) lives in that mock, which no later command reaches (`--mock` starts a fresh one).
 * Every resume command a waiting command prints or reports comes from here.
 */
export function resumeCommandFor(ctx: CommandContext, target: ResumeTarget): string | null {
  return ctx.globals.mock ? null : resumeCommand(target, ctx.cwd);
}

const endsWithCommand = (ctx: CommandContext): boolean => mockEndsWithCommand(ctx.globals, ctx.frontEnd);

/** What is said instead of a resume command for a job on the mock this command started. */
const mockEnds = (target: ResumeTarget): string =>
  `The ${target.kind === 'video' ? 'video job' : 'run'} ${target.id} is on the bundled mock (--mock), which ends with this command: nothing was charged for real, and there is nothing to resume.`;

/** How to pick the job up, in the front end's words (an MCP client's waiting tool needs no command line). */
const resumeAdvice = (ctx: CommandContext, target: ResumeTarget, command: string | null): string =>
  ctx.frontEnd.resume({ command: command ?? '', tool: resumeToolCall(target, ctx.cwd) });

/**
 * A paid job left to go on by itself (--no-wait): says how to pick it up (`lead`, e.g. "Wait for it
 * with"), or that it ends with the mock; the job as `--json` reports it (`resume: null` on the mock).
 */
export function leaveJob(ctx: CommandContext, target: ResumeTarget, lead: string): PaidJob {
  const resume = resumeCommandFor(ctx, target);
  if (resume !== null) ctx.out.info(`${lead}: ${resume}`);
  else ctx.out.info(endsWithCommand(ctx) ? mockEnds(target) : `${lead}: ${resumeAdvice(ctx, target, resume)}`);
  return { id: target.id, kind: target.kind, resume };
}

/** The journal recorded the job's submission (by this or an earlier command): it was paid for. */
function journalled(ctx: CommandContext, target: ResumeTarget): boolean {
  try {
    // A submission is journalled with its label; a bare update (`runs get`) proves nothing.
    return ctx.journal.find(target.kind, target.id)?.label !== undefined;
  } catch {
    return false; // an unreadable journal proves nothing
  }
}

/**
 * A wait for an id nothing has vouched for (typed by the user, never answered for): it may be a
 * typo, so nothing is said to be paid for or kept. A request the service refused (a 4xx: the id
 * too long for it, say) has nothing to resume; after anything else, waiting again may still work.
 */
function unconfirmedJob(ctx: CommandContext, error: unknown, target: ResumeTarget): unknown {
  const refused = error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
  if (refused) return attachJob(error, { id: target.id, kind: target.kind, resume: null });
  const resume = resumeCommandFor(ctx, target);
  // A wait on this command's own mock: whatever it was, it ends with the mock.
  if (endsWithCommand(ctx)) return attachJob(error, { id: target.id, kind: target.kind, resume }, target);
  withHint(
    error,
    `No answer of the service has shown the ${target.kind === 'video' ? 'video job' : 'run'} ${target.id} yet; to wait for it again: ${resumeAdvice(ctx, target, resume)}`,
  );
  return attachJob(error, { id: target.id, kind: target.kind, resume }, target);
}

/** Polls a run to its end (exactly one poll per remaining node) with `node k/N <label>` progress. */
export async function followRun(ctx: CommandContext, client: AssetgenClient, target: ResumeTarget, initial?: Run): Promise<Run> {
  const progress = await startProgress(
    ctx.out,
    initial ? `Run ${target.id}: ${describeRunProgress(initial)}` : `Waiting for run ${target.id}…`,
  );
  // Known paid once the service has answered for the run: its submission, or any poll.
  let answered = initial !== undefined;
  try {
    const run = await waitForRun((id, o) => client.getRun(id, o), target.id, {
      signal: ctx.signal,
      initial,
      onProgress: (update) => {
        answered = true;
        ctx.onJobProgress?.({
          kind: 'run',
          id: target.id,
          state: update.state,
          progress: update.completedNodes,
          total: update.totalNodes,
          message: `Run ${target.id}: ${describeRunProgress(update)}`,
        });
        // The final state gets its own line below.
        if (update.state !== 'succeeded' && update.state !== 'failed') progress.update(`Run ${target.id}: ${describeRunProgress(update)}`);
      },
    });
    ctx.journal.recordUpdate('run', run.id, client.baseUrl, { state: run.state });
    progress.succeed(`Run ${run.id} ${run.state} (${run.completedNodes ?? '?'}/${run.totalNodes ?? '?'} nodes).`);
    return run;
  } catch (error) {
    throw stopped(ctx, client, progress, target, error, answered);
  }
}

/** Polls a video job at the service's pace until it finishes. A failed job reports its refund. */
export async function followVideo(
  ctx: CommandContext,
  client: AssetgenClient,
  target: ResumeTarget,
  initial?: VideoJob,
): Promise<VideoJob> {
  const progress = await startProgress(ctx.out, `Video job ${target.id}: ${initial?.state ?? 'waiting'}…`);
  let answered = initial !== undefined;
  // What this command saw of the job: its last answer, and whether an answer before the last showed
  // it unfinished (then a refund the last one states was made while this command watched: refundSeen).
  const seen: SeenVideo = { job: initial, watched: initial !== undefined && !isTerminal(initial.state) && isNews(initial) };
  try {
    const job = await waitForVideo((id, o) => client.getVideo(id, o), target.id, {
      signal: ctx.signal,
      initial,
      intervalMs: target.intervalMs,
      onProgress: (update) => {
        answered = true;
        // The failing answer ends the wait: only the answers before it can set `watched`.
        if (!isTerminal(update.state)) seen.watched = true;
        seen.job = update;
        const pct = typeof update.progress === 'number' ? ` ${Math.round(update.progress * 100)}%` : '';
        ctx.onJobProgress?.({
          kind: 'video',
          id: target.id,
          state: update.state,
          progress: update.state === 'succeeded' ? 1 : update.progress,
          total: 1,
          message: `Video job ${target.id}: ${update.state}${pct}`,
        });
        if (update.state !== 'succeeded' && update.state !== 'failed') progress.update(`Video job ${target.id}: ${update.state}${pct}`);
      },
    });
    ctx.journal.recordUpdate('video', target.id, client.baseUrl, { state: job.state });
    progress.succeed(`Video job ${target.id} succeeded.`);
    return job;
  } catch (error) {
    throw stopped(ctx, client, progress, target, error instanceof JobFailedError ? videoFailure(ctx, error, seen) : error, answered, seen);
  }
}

/** A video job as one command saw it (followVideo). */
interface SeenVideo {
  /** The last answer about it: the submission's, or a poll's. */
  job?: VideoJob;
  /** An answer of this command before the last showed the job unfinished. */
  watched: boolean;
}

/**
 * A submission's answer is news of the job, unless it replays the stored answer of an earlier call
 * with the same key (charged 0 here): that one tells how the job was then, not now.
 */
const isNews = (job: VideoJob): boolean => job.credits.paidEarlier === undefined && job.credits.charged !== 0;

/**
 * The refund of a failed video job that this command counts in its `credits.refunded` (and a build
 * frees in its cap): only one the service's answer states (`refunded: true` or a `refund` record:
 * its amount when given, else the job's price), and only when this command saw the job unfinished
 * first — so the refund was made while it watched, and `credits` moves as the ledger did meanwhile.
 * A job already failed at this command's first answer was refunded (or not) before: its refund is
 * told, never counted again (docs/cli.md, "Credits").
 */
function refundSeen(seen: SeenVideo, error: JobFailedError): number {
  const { refunded, amount } = refundOf(seen, error);
  return refunded === true && seen.watched ? amount : 0;
}

/** What the answer that said the job failed (the last one seen) states of its refund, and of how much. */
function refundOf(seen: SeenVideo, error: JobFailedError): { job?: VideoJob; refunded?: boolean; amount: number } {
  const job = seen.job?.state === 'failed' && seen.job.id === error.jobId ? seen.job : undefined;
  return { job, refunded: job?.refunded ?? error.refunded, amount: job?.refundAmount ?? VIDEO_JOB_COST };
}

/**
 * A failed video job in words, its refund as its record states it: refunded, not yet, or — the record
 * silent — not known (`video get` and a wait's failure say the same).
 */
export function failedVideoText(job: Pick<VideoJob, 'id' | 'error' | 'refunded' | 'refundAmount'>): string {
  const why = job.error?.message ? `: ${job.error.message}` : '';
  const amount = job.refundAmount ?? VIDEO_JOB_COST;
  const refund =
    job.refunded === true
      ? `The ${amount} credits were refunded.`
      : job.refunded === false
        ? 'The service has not reported a refund yet.'
        : `Its record does not say whether the ${amount} credits have been refunded yet.`;
  return `Video job ${job.id} failed${/[.!?]$/.test(why) ? why : `${why}.`} ${refund}`;
}

/**
 * A failed video job's error, its refund in words: refunded (counted or not, and why), not refunded
 * yet, or — when the service's record says nothing of it — not known yet, and how to look.
 */
function videoFailure(ctx: CommandContext, error: JobFailedError, seen: SeenVideo): JobFailedError {
  const { job, refunded } = refundOf(seen, error);
  const look = ctx.frontEnd.pollVideo(error.jobId);
  if (refunded === true) {
    if (seen.watched) return error;
    return withHint(
      error,
      `The job was refunded already at this command's first answer about it: that refund is not counted in this command's credits.`,
    );
  }
  if (refunded === false) return withHint(error, `The service refunds failed jobs by itself; ${look} shows when it has.`);
  // The record says nothing of a refund: it may come later, or have come already; nothing is counted.
  const failed = new JobFailedError(failedVideoText(job ?? { id: error.jobId }), {
    jobId: error.jobId,
    record: error.record,
    code: error.code,
    hint: error.hint,
  });
  return withHint(
    failed,
    `The service refunds failed jobs by itself; assetgen counts a refund only once an answer states it (not counted in the credits reported). ${look} shows the job's record, and the account's balance shows the refund once it is made.`,
  );
}

/** However a wait ends but by the job's end: the progress line closed, the job remembered. */
function stopped(
  ctx: CommandContext,
  client: AssetgenClient,
  progress: Progress,
  target: ResumeTarget,
  error: unknown,
  answered: boolean,
  seen?: SeenVideo,
): unknown {
  finishFailed(ctx, client, progress, target, error, seen);
  return rememberPaidJob(ctx, error, target, answered);
}

function finishFailed(
  ctx: CommandContext,
  client: AssetgenClient,
  progress: Progress,
  target: ResumeTarget,
  error: unknown,
  seen?: SeenVideo,
): void {
  if (!(error instanceof JobFailedError)) {
    progress.stop();
    return;
  }
  const what = target.kind === 'video' ? 'Video job' : 'Run';
  progress.fail(`${what} ${target.id} failed.`);
  const refund = target.kind === 'video' && seen ? refundSeen(seen, error) : 0;
  if (refund) ctx.credits.refund(refund);
  ctx.journal.recordUpdate(target.kind, target.id, client.baseUrl, {
    state: 'failed',
    ...(error.refunded !== undefined ? { refunded: error.refunded } : {}),
  });
}

/** `node k/N <label>`: the node being worked on now (k = nodes done + 1). */
export function describeRunProgress(run: Run): string {
  const total = run.totalNodes;
  const done = run.completedNodes;
  if (run.state === 'succeeded' || run.state === 'failed')
    return `${run.state}${total !== undefined ? ` (${done ?? total}/${total} nodes)` : ''}`;
  if (done === undefined || total === undefined) return sanitizeLine(run.status);
  const label = run.currentNode?.label ?? run.currentNode?.id;
  return `node ${Math.min(done + 1, total)}/${total}${label ? ` ${sanitizeLine(label)}` : ''}`;
}

/**
 * The whole wait of a paid job: follow it, save what it made, journal the files; its result. A save
 * error after a finished job still names the job (its outputs can be fetched again by resuming).
 */
export async function waitAndSave(
  ctx: CommandContext,
  client: AssetgenClient,
  target: ResumeTarget,
  initial: Run | VideoJob | undefined,
  options: { output?: string; force?: boolean },
): Promise<SavedResult<Record<string, unknown>>> {
  const finished =
    target.kind === 'video'
      ? await followVideo(ctx, client, target, initial)
      : await followRun(ctx, client, target, initial as Run | undefined);
  try {
    const files = outputFiles(finished, target.kind);
    const saved = await saveOutputs(ctx, client, files, options);
    // `saved` (even empty) marks the job done here: a succeeded job without it is still to be saved (`assetgen jobs`).
    ctx.journal.recordUpdate(target.kind, target.id, client.baseUrl, { saved: saved.filter((file) => file !== '-') });
    if (!saved.length) ctx.out.info(`The ${target.kind === 'video' ? 'video job' : 'run'} produced no files to save.`);
    return savedResult(ctx, saved, {
      ...asRecord(finished.raw),
      ...(target.kind === 'video' ? { assetUrl: (finished as VideoJob).assetUrl } : {}),
    });
  } catch (error) {
    // A job that succeeded with nothing to save (job_empty) is settled: waiting again would only pay polls.
    if (error instanceof JobFailedError) ctx.journal.recordUpdate(target.kind, target.id, client.baseUrl, { saved: [] });
    throw rememberPaidJob(ctx, error, target, true); // the job finished: the service answered for it
  }
}

function outputFiles(finished: Run | VideoJob, kind: ResumeTarget['kind']): OutputFile[] {
  return kind === 'video' ? [videoOutputFile(finished, finished.id)] : runOutputFiles(finished as Run, finished.id);
}

/** A finished run's files, one per output with a URL: `<stem>-<node id, or its position>`. */
export function runOutputFiles(run: Run, stem: string): OutputFile[] {
  return run.outputs.flatMap((output, index) =>
    output.url
      ? [{ url: output.url, stem: `${stem}-${output.nodeId ?? index + 1}`, contentType: output.contentType, fallbackExtension: '.png' }]
      : [],
  );
}

/** A finished video job's file; a job that succeeded without a video is an error naming it. */
export function videoOutputFile(job: VideoJob, stem: string): OutputFile {
  if (!job.assetUrl) throw emptyVideo(job);
  return { url: job.assetUrl, stem, contentType: job.contentType, fallbackExtension: '.mp4' };
}

/**
 * A video job the service calls succeeded but that has no video (`output: null`): nothing to save,
 * and nothing to resume. Exit 6 like a failed job, but not refunded: the service refunds failures only.
 */
function emptyVideo(job: VideoJob): JobFailedError {
  return new JobFailedError(`Video job ${job.id} succeeded, but the service sent no video for it: there is nothing to save.`, {
    jobId: job.id,
    refunded: job.refunded ?? false,
    record: job.raw,
    code: 'job_empty',
    hint: `The service refunds failed jobs only, so its ${VIDEO_JOB_COST} credits stay charged: report the job id to the service. Waiting again will not help.`,
  });
}

/** A record's raw body as an object to spread into the --json document. */
export function asRecord(raw: unknown): Record<string, unknown> {
  return isObject(raw) ? raw : { raw };
}

/** The resume target of a job this command started or follows, from its options. */
export function targetFor(
  ctx: CommandContext,
  kind: ResumeTarget['kind'],
  id: string,
  options: { output?: string; force?: boolean; interval?: number },
): ResumeTarget {
  // Checked before anything is shown or sent: the id reaches progress lines and printed commands.
  requireCallerId(id, kind === 'video' ? 'The video job id' : 'The run id');
  return {
    kind,
    id,
    output: absoluteOutput(options.output, ctx.cwd),
    ...(ctx.globals.baseUrl !== undefined ? { baseUrl: ctx.globals.baseUrl } : {}),
    ...(options.interval !== undefined ? { intervalMs: options.interval } : {}),
    ...(options.force ? { force: true } : {}),
  };
}

/** Journals a job just paid for — before any waiting — with what resuming it needs. */
export function journalPaidJob(
  ctx: CommandContext,
  client: AssetgenClient,
  target: ResumeTarget,
  details: { state: string; label: string; creditsCharged?: number },
): void {
  const { output, baseUrl, intervalMs, force } = target;
  ctx.journal.recordSubmitted({
    kind: target.kind,
    id: target.id,
    baseUrl: client.baseUrl,
    ...details,
    resume: { output, baseUrl, intervalMs, force },
  });
}
