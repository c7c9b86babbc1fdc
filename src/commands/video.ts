// `assetgen video create|get|wait`. A video job costs 180 credits at submission (refunded by the
// service if it fails), so creating one needs a confirmation, and every job is journalled before
// any waiting starts.
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import type { VideoJob } from '../client/types.js';
import type { CommandContext } from '../cli/context.js';
import { UsageError } from '../cli/errors.js';
import { asRecord, failedVideoText, journalPaidJob, leaveJob, targetFor, waitAndSave } from '../cli/follow.js';
import { paidCall } from '../cli/idempotency.js';
import { confirmCharge } from '../cli/prompt.js';
import { command } from '../cli/command.js';
import { renderCredits, withCredits, type Charged } from '../cli/charged.js';
import { renderPaidJob, renderSaved } from '../cli/report.js';
import { absoluteOutput, withPositional } from '../cli/resume.js';
import { checkOutputTarget } from '../cli/save.js';

interface WaitOptions {
  output?: string;
  force?: boolean;
  /** ms, parsed by the command table. */
  interval?: number;
}

interface CreateOptions extends WaitOptions {
  agent?: string;
  duration?: number;
  aspectRatio?: string;
  yes?: boolean;
  wait: boolean;
  idempotencyKey?: string;
}

export const create = command({
  run: createVideo,
  render: renderPaidJob,
});

async function createVideo(ctx: CommandContext, prompt: string, options: CreateOptions) {
  if (!prompt.trim()) throw new UsageError('The prompt is empty.');
  checkOutputTarget(ctx, options.output, Boolean(options.force), { kind: 'video' });
  await confirmVideoCharge(ctx, options.yes === true);

  const client = await ctx.client();
  const job = await paidCall(
    ctx,
    options.idempotencyKey,
    (key) =>
      client.createVideo(
        { prompt, agentId: options.agent, durationSeconds: options.duration, aspectRatio: options.aspectRatio },
        { signal: ctx.signal, ...key },
      ),
    undefined,
    undefined,
    {
      kind: 'video',
      baseUrl: client.baseUrl,
      label: prompt,
      // The same request again, with the same key: the job the first one made, not a second charge.
      resubmit: (key) =>
        withPositional(['video', 'create'], prompt, [
          ...(options.agent !== undefined ? ['--agent', options.agent] : []),
          ...(options.duration !== undefined ? ['--duration', String(options.duration)] : []),
          ...(options.aspectRatio !== undefined ? ['--aspect-ratio', options.aspectRatio] : []),
          '--yes',
          '-o',
          absoluteOutput(options.output, ctx.cwd),
          ...(options.force ? ['--force'] : []),
          // Asked again as it was asked: waiting for the job, or only submitting it.
          ...(options.wait === false ? ['--no-wait'] : []),
          '--idempotency-key',
          key,
        ]),
    },
  );
  // The price is known even when the service does not report the charge.
  if (job.credits.charged === undefined) ctx.credits.add({ charged: VIDEO_JOB_COST });
  const target = targetFor(ctx, 'video', job.id, options);
  journalPaidJob(ctx, client, target, {
    state: job.state,
    label: prompt,
    creditsCharged: job.credits.paidEarlier ?? job.credits.charged ?? VIDEO_JOB_COST,
  });
  ctx.out.info(`Submitted video job ${job.id}.`);
  if (!options.wait) {
    const { resume } = leaveJob(ctx, target, 'Wait for it with');
    return withCredits(ctx, { ...asRecord(job.raw), job: { id: job.id, kind: 'video' as const, resume } });
  }
  return waitAndSave(ctx, client, target, job, options);
}

/** `get`: the service's own record (the --json document, `credits` added) and the client's reading of it, which people see. */
interface VideoJobRecord {
  document: Charged<Record<string, unknown>>;
  job: VideoJob;
}

export const get = command({
  async run(ctx: CommandContext, id: string): Promise<VideoJobRecord> {
    const client = await ctx.client();
    const job = await client.getVideo(id, { signal: ctx.signal });
    ctx.journal.recordUpdate('video', job.id, client.baseUrl, { state: job.state, ...(job.refunded ? { refunded: true } : {}) });
    return { document: withCredits(ctx, asRecord(job.raw)), job };
  },
  render(ctx, { job, document }) {
    // The record as the client read it (its URLs against the service this command called).
    renderVideoJob(ctx, job);
    renderCredits(ctx, document);
  },
  document: (result) => result.document,
});

function renderVideoJob(ctx: CommandContext, job: VideoJob): void {
  const progress = typeof job.progress === 'number' ? ` ${Math.round(job.progress * 100)}%` : '';
  ctx.out.result([job.id, job.state + progress, ...(job.assetUrl ? [job.assetUrl] : [])].map((cell) => ctx.out.server(cell)).join('\t'));
  if (job.state === 'failed') ctx.out.info(ctx.out.server(failedVideoText(job)));
  if (job.state === 'succeeded' && !job.assetUrl) ctx.out.warn(`Video job ${job.id} succeeded, but the service sent no video for it.`);
}

export const wait = command({
  async run(ctx: CommandContext, id: string, options: WaitOptions) {
    // Its file is named by the job id in a folder: one saved there already is refused before a (charged) poll.
    checkOutputTarget(ctx, options.output, Boolean(options.force), { kind: 'video', stem: id });
    const client = await ctx.client();
    return waitAndSave(ctx, client, targetFor(ctx, 'video', id, options), undefined, options);
  },
  render: renderSaved,
});

/** Spending a video's price needs a yes: asked on a terminal, `--yes` otherwise. */
function confirmVideoCharge(ctx: CommandContext, yes: boolean): Promise<void> {
  return confirmCharge(ctx, yes, {
    cost: `A video job costs ${VIDEO_JOB_COST} credits`,
    question: `A video job costs ${VIDEO_JOB_COST} credits, charged now (refunded automatically if the job fails). Submit it?`,
    cancelled: 'Cancelled: no video job was submitted and nothing was charged.',
  });
}
