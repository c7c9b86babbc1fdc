// Waiting for runs and video jobs. A run poll advances the run and a poll with a key costs
// credits, so waitForRun polls back to back while the run advances and stops at the first
// terminal answer; waitForVideo backs off from the service's hint up to a cap.
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import { ChargedAnswerLostError, JobFailedError } from './errors.js';
import { excerpt } from './excerpt.js';
import { pause, throwIfAborted } from './failures.js';
import { isTerminal } from './normalize.js';
import type { Run, SignalOptions, VideoJob, WaitForRunOptions, WaitForVideoOptions } from './types.js';

/**
 * Polls in a row whose charged answer was lost on the way (ChargedAnswerLostError) before the wait
 * gives up: each is asked again on the next poll, as the client does not retry a charged call.
 */
export const MAX_LOST_POLL_ANSWERS = 3;

/** One poll; a charged answer lost on the way is `undefined` (no news: ask again), up to MAX_LOST_POLL_ANSWERS in a row. */
async function pollOnce<T>(poll: () => Promise<T>, lost: { inARow: number }): Promise<T | undefined> {
  try {
    const answer = await poll();
    lost.inARow = 0;
    return answer;
  } catch (error) {
    if (!(error instanceof ChargedAnswerLostError) || ++lost.inARow > MAX_LOST_POLL_ANSWERS) throw error;
    return undefined;
  }
}

/** When a poll shows no progress (a service that does not advance per poll), slow down. */
const STALLED_RUN_FIRST_DELAY_MS = 500;
const STALLED_RUN_MAX_DELAY_MS = 5_000;
const VIDEO_DEFAULT_FIRST_DELAY_MS = 1_000;
/** The service's hint is followed, but never faster than this (each keyed poll may cost credits). */
const VIDEO_MIN_DELAY_MS = 250;
const VIDEO_BACKOFF_FACTOR = 1.5;
export const VIDEO_DEFAULT_MAX_INTERVAL_MS = 15_000;

function runFailed(run: Run): JobFailedError {
  const where = run.currentNode ? ` at node ${excerpt(run.currentNode.label ?? run.currentNode.id)}` : '';
  const why = run.error ? `: ${run.error.message}` : '.';
  return new JobFailedError(`Run ${run.id} failed${where}${why}`, { jobId: run.id, record: run.raw });
}

export async function waitForRun(
  getRun: (runId: string, o: SignalOptions) => Promise<Run>,
  runId: string,
  options: WaitForRunOptions = {},
): Promise<Run> {
  const { signal, onProgress, intervalMs = 0, initial } = options;
  throwIfAborted(signal);
  let run = initial;
  if (run && isTerminal(run.state)) {
    if (run.state === 'failed') throw runFailed(run);
    return run;
  }
  let stalledDelay = 0;
  const lost = { inARow: 0 };
  for (let polls = 1; ; polls++) {
    if (polls > 1) await pause(Math.max(intervalMs, stalledDelay), signal);
    const previous = run?.completedNodes;
    const answer = await pollOnce(() => getRun(runId, { signal }), lost);
    if (answer === undefined) continue;
    run = answer;
    onProgress?.(run, polls);
    if (run.state === 'failed') throw runFailed(run);
    if (run.state === 'succeeded') return run;
    const advanced = previous === undefined || run.completedNodes === undefined || run.completedNodes > previous;
    stalledDelay = advanced ? 0 : Math.min(STALLED_RUN_MAX_DELAY_MS, stalledDelay ? stalledDelay * 2 : STALLED_RUN_FIRST_DELAY_MS);
  }
}

function videoFailed(job: VideoJob): JobFailedError {
  const why = job.error ? `: ${job.error.message}` : '.';
  const amount = job.refundAmount ?? VIDEO_JOB_COST;
  const refund =
    job.refunded === false
      ? ` The service reports no refund of the ${amount} credits yet.`
      : job.refunded
        ? ` The ${amount} credits were refunded.`
        : ` The service refunds failed video jobs automatically (${amount} credits).`;
  return new JobFailedError(`Video job ${job.id} failed${why}${refund}`, { jobId: job.id, refunded: job.refunded, record: job.raw });
}

/**
 * Next pause: the service's own hint whenever it gives one (between 250 ms and the cap), so a job is
 * noticed when the service says it will be ready; without a hint, 1 s then ×1.5 per poll, capped.
 */
export function nextVideoDelay(previousMs: number | undefined, hintMs: number | undefined, capMs: number): number {
  if (hintMs !== undefined) return Math.min(capMs, Math.max(VIDEO_MIN_DELAY_MS, Math.round(hintMs)));
  const next = previousMs === undefined ? VIDEO_DEFAULT_FIRST_DELAY_MS : previousMs * VIDEO_BACKOFF_FACTOR;
  return Math.min(capMs, Math.round(next));
}

export async function waitForVideo(
  getVideo: (id: string, o: SignalOptions) => Promise<VideoJob>,
  id: string,
  options: WaitForVideoOptions = {},
): Promise<VideoJob> {
  const { signal, onProgress, intervalMs, maxIntervalMs = VIDEO_DEFAULT_MAX_INTERVAL_MS, initial } = options;
  throwIfAborted(signal);
  let job = initial;
  let delay: number | undefined;
  const lost = { inARow: 0 };
  for (let asked = false; ; asked = true) {
    if (job) {
      if (job.state === 'failed') throw videoFailed(job);
      if (job.state === 'succeeded') return job;
    }
    if (job || asked) {
      delay = intervalMs ?? nextVideoDelay(delay, job?.pollAfterMs, maxIntervalMs);
      await pause(delay, signal);
    }
    const answer = await pollOnce(() => getVideo(id, { signal }), lost);
    if (answer === undefined) continue;
    job = answer;
    onProgress?.(job);
  }
}
