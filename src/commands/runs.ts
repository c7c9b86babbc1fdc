// `assetgen runs get|wait <runId>`, and the follow-and-save logic `workflows run` shares.
// Every poll advances the run by one node and costs credits, so a run is never polled after it
// finished, and a run of N nodes started here is followed with exactly N polls.
import path from 'node:path';
import type { AssetgenClient, Run } from '../index.js';
import type { CommandContext } from '../cli/context.js';
import { CreditTally, reportCredits } from '../cli/render.js';
import { withResumeHint } from '../cli/resume.js';
import { displayPath, extensionFor, safeFileName, saveAsset } from '../cli/saving.js';
import { startProgress } from '../ui/progress.js';
import { sanitizeLine } from '../ui/sanitize.js';
import { asObject } from './generate.js';

interface SaveOptions {
  output?: string;
  force?: boolean;
}

export async function get(ctx: CommandContext, runId: string): Promise<void> {
  const client = await ctx.client();
  const run = await client.getRun(runId, { signal: ctx.signal });
  ctx.journal.recordUpdate('run', run.id, client.baseUrl, { state: run.state });
  reportCredits(ctx, run.credits);
  ctx.out.result(`${run.id}\t${run.state}\t${describeProgress(run)}`);
  ctx.out.document(asObject(run.raw));
}

export async function wait(ctx: CommandContext, runId: string, options: SaveOptions): Promise<void> {
  const client = await ctx.client();
  await followRun(ctx, client, runId, undefined, options);
}

/** Polls a run to its end with live `node k/N <label>` progress, then saves its outputs. */
export async function followRun(
  ctx: CommandContext,
  client: AssetgenClient,
  runId: string,
  initial: Run | undefined,
  options: SaveOptions,
): Promise<void> {
  const progress = await startProgress(ctx.out, initial ? `Run ${runId}: ${describeProgress(initial)}` : `Waiting for run ${runId}…`);
  let finished: Run;
  const polling = new CreditTally();
  try {
    finished = await client.waitForRun(runId, {
      signal: ctx.signal,
      initial,
      onProgress: (run) => {
        polling.add(run.credits);
        // The final state gets its own line below.
        if (run.state !== 'succeeded' && run.state !== 'failed') progress.update(`Run ${runId}: ${describeProgress(run)}`);
      },
    });
  } catch (error) {
    progress.stop();
    throw withResumeHint(ctx, error, resumeCommand(ctx, runId));
  }
  ctx.journal.recordUpdate('run', finished.id, client.baseUrl, { state: finished.state });
  progress.succeed(`Run ${finished.id} ${finished.state} (${finished.completedNodes ?? '?'}/${finished.totalNodes ?? '?'} nodes).`);
  reportCredits(ctx, polling.total, 'Polling');

  const dir = path.resolve(ctx.cwd, options.output ?? '.');
  const saved: string[] = [];
  for (const [index, output] of finished.outputs.entries()) {
    if (!output.url) continue;
    const name = safeFileName(`${finished.id}-${output.nodeId ?? index + 1}${extensionFor(output.url, output.contentType, '.png')}`);
    const file = await saveAsset(ctx, client, output.url, path.join(dir, name), Boolean(options.force));
    saved.push(file);
    ctx.out.info(`Saved ${displayPath(ctx, file)}`);
    ctx.out.result(file);
  }
  if (saved.length) ctx.journal.recordUpdate('run', finished.id, client.baseUrl, { saved });
  else ctx.out.info('The run produced no files to save.');
  ctx.out.document({ ...asObject(finished.raw), saved });
}

/** `node k/N <label>`: the node being worked on now (k = nodes done + 1). */
export function describeProgress(run: Run): string {
  const total = run.totalNodes;
  const done = run.completedNodes;
  if (run.state === 'succeeded' || run.state === 'failed')
    return `${run.state}${total !== undefined ? ` (${done ?? total}/${total} nodes)` : ''}`;
  if (done === undefined || total === undefined) return run.status;
  const label = run.currentNode?.label ?? run.currentNode?.id;
  return `node ${Math.min(done + 1, total)}/${total}${label ? ` ${sanitizeLine(label)}` : ''}`;
}

export function resumeCommand(ctx: CommandContext, runId: string): string {
  return `assetgen runs wait ${runId}${ctx.globals.baseUrl ? ` --base-url ${ctx.globals.baseUrl}` : ''}`;
}
