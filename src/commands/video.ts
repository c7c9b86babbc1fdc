// `assetgen video create|get|wait`. A video job costs 180 credits at submission (refunded by the
// service if it fails), so creating one needs a confirmation, and every job is journalled before
// any waiting starts.
import { AssetgenError, JobFailedError } from '../client/errors.js';
import { UsageError } from '../cli/errors.js';
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import type { AssetgenClient, VideoJob } from '../index.js';
import type { CommandContext } from '../cli/context.js';
import { parseDuration } from '../cli/duration.js';
import { paidCall } from '../cli/idempotency.js';
import { CreditTally, reportCredits } from '../cli/render.js';
import { withResumeHint } from '../cli/resume.js';
import { checkOutputTarget, displayPath, extensionFor, resolveOutputPath, safeFileName, saveAsset } from '../cli/saving.js';
import { startProgress } from '../ui/progress.js';
import { asObject } from './generate.js';

interface SaveOptions {
  output?: string;
  force?: boolean;
  interval?: string;
}

interface CreateOptions extends SaveOptions {
  agent?: string;
  duration?: string;
  aspectRatio?: string;
  yes?: boolean;
  wait: boolean;
  idempotencyKey?: string;
}

export async function create(ctx: CommandContext, prompt: string, options: CreateOptions): Promise<void> {
  if (!prompt.trim()) throw new UsageError('The prompt is empty.');
  const durationSeconds = options.duration === undefined ? undefined : Number(options.duration);
  if (durationSeconds !== undefined && !(Number.isFinite(durationSeconds) && durationSeconds > 0)) {
    throw new UsageError(`Invalid --duration "${options.duration}": use a number of seconds, e.g. --duration 4.`);
  }
  const intervalMs = options.interval === undefined ? undefined : parseDuration(options.interval, '--interval');
  checkOutputTarget(ctx, options.output, Boolean(options.force));
  await confirmCharge(ctx, options.yes === true);

  const client = await ctx.client();
  const job = await paidCall(options.idempotencyKey, (idempotencyKey) =>
    client.createVideo(
      { prompt, agentId: options.agent, durationSeconds, aspectRatio: options.aspectRatio },
      { signal: ctx.signal, idempotencyKey },
    ),
  );
  // On disk before any waiting: a paid job is never lost track of.
  ctx.journal.recordSubmitted({
    kind: 'video',
    id: job.id,
    baseUrl: client.baseUrl,
    state: job.state,
    label: prompt,
    creditsCharged: job.credits.charged ?? VIDEO_JOB_COST,
  });
  ctx.out.info(`Submitted video job ${job.id}.`);
  reportCredits(ctx, job.credits);
  if (!options.wait) {
    ctx.out.info(`Wait for it with: ${resumeCommand(ctx, job.id)}`);
    ctx.out.result(job.id);
    ctx.out.document(asObject(job.raw));
    return;
  }
  await followVideo(ctx, client, job.id, job, { ...options, intervalMs });
}

export async function get(ctx: CommandContext, id: string): Promise<void> {
  const client = await ctx.client();
  const job = await client.getVideo(id, { signal: ctx.signal });
  ctx.journal.recordUpdate('video', job.id, client.baseUrl, { state: job.state, ...(job.refunded ? { refunded: true } : {}) });
  const progress = typeof job.progress === 'number' ? ` ${Math.round(job.progress * 100)}%` : '';
  ctx.out.result(`${job.id}\t${job.state}${progress}${job.assetUrl ? `\t${job.assetUrl}` : ''}`);
  if (job.state === 'failed') ctx.out.info(failureText(job));
  ctx.out.document(asObject(job.raw));
}

export async function wait(ctx: CommandContext, id: string, options: SaveOptions): Promise<void> {
  checkOutputTarget(ctx, options.output, Boolean(options.force));
  const intervalMs = options.interval === undefined ? undefined : parseDuration(options.interval, '--interval');
  const client = await ctx.client();
  await followVideo(ctx, client, id, undefined, { ...options, intervalMs });
}

async function followVideo(
  ctx: CommandContext,
  client: AssetgenClient,
  id: string,
  initial: VideoJob | undefined,
  options: SaveOptions & { intervalMs?: number },
): Promise<void> {
  const progress = await startProgress(ctx.out, `Video job ${id}: ${initial?.state ?? 'waiting'}…`);
  let job: VideoJob;
  const polling = new CreditTally();
  try {
    job = await client.waitForVideo(id, {
      signal: ctx.signal,
      initial,
      intervalMs: options.intervalMs,
      onProgress: (update) => {
        if (update !== initial) polling.add(update.credits);
        const pct = typeof update.progress === 'number' ? ` ${Math.round(update.progress * 100)}%` : '';
        if (update.state !== 'succeeded' && update.state !== 'failed') progress.update(`Video job ${id}: ${update.state}${pct}`);
      },
    });
  } catch (error) {
    if (error instanceof JobFailedError) {
      progress.fail(`Video job ${id} failed.`);
      ctx.journal.recordUpdate('video', id, client.baseUrl, { state: 'failed', refunded: error.refunded });
      throw error;
    }
    progress.stop();
    throw withResumeHint(ctx, error, resumeCommand(ctx, id));
  }
  ctx.journal.recordUpdate('video', id, client.baseUrl, { state: job.state });
  reportCredits(ctx, polling.total, 'Polling');
  if (!job.assetUrl) throw new AssetgenError(`Video job ${id} finished without a video URL.`, { code: 'unexpected_response' });
  const fileName = safeFileName(`${job.id}${extensionFor(job.assetUrl, job.contentType, '.mp4')}`);
  const target = resolveOutputPath(options.output, ctx.cwd, fileName);
  progress.update(`Video job ${id}: downloading…`);
  const saved = await saveAsset(ctx, client, job.assetUrl, target, Boolean(options.force));
  progress.succeed(saved === '-' ? `Video job ${id} done; wrote the video to stdout.` : `Saved ${displayPath(ctx, saved)}`);
  if (saved !== '-') {
    ctx.journal.recordUpdate('video', id, client.baseUrl, { saved: [saved] });
    ctx.out.result(saved);
  }
  ctx.out.document({ ...asObject(job.raw), assetUrl: job.assetUrl, saved: saved === '-' ? [] : [saved] });
}

/** Spending 180 credits needs a yes: asked on a terminal, `--yes` otherwise. */
async function confirmCharge(ctx: CommandContext, yes: boolean): Promise<void> {
  if (yes) return;
  const question = `A video job costs ${VIDEO_JOB_COST} credits, charged now (refunded automatically if the job fails). Submit it?`;
  if (!ctx.interactive) {
    throw new UsageError(
      `A video job costs ${VIDEO_JOB_COST} credits: pass --yes to confirm.`,
      'There is no terminal to ask on (or --no-input was given); nothing was charged.',
    );
  }
  const { confirm } = await import('@inquirer/prompts');
  const ok = await confirm({ message: question, default: false }, { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal });
  if (!ok) throw new AssetgenError('Cancelled: no video job was submitted and nothing was charged.', { code: 'cancelled' });
}

function failureText(job: VideoJob): string {
  const reason = job.error?.message ? `: ${job.error.message}` : '';
  const refund = job.refunded === false ? ' The service has not reported a refund yet.' : ` The ${VIDEO_JOB_COST} credits were refunded.`;
  return `Video job ${job.id} failed${reason}.${refund}`;
}

function resumeCommand(ctx: CommandContext, id: string): string {
  return `assetgen video wait ${id}${ctx.globals.baseUrl ? ` --base-url ${ctx.globals.baseUrl}` : ''}`;
}
