// `assetgen runs get|wait <runId>`. Every poll advances the run by one node and may cost credits,
// so a run is never polled after it finished, and a run of N nodes is followed with exactly N polls.
import type { CommandContext } from '../cli/context.js';
import { asRecord, describeRunProgress, targetFor, waitAndSave } from '../cli/follow.js';
import { reportDocument } from '../cli/report.js';
import { checkOutputTarget } from '../cli/save.js';

interface WaitOptions {
  output?: string;
  force?: boolean;
}

export async function get(ctx: CommandContext, runId: string): Promise<void> {
  const client = await ctx.client();
  const run = await client.getRun(runId, { signal: ctx.signal });
  ctx.journal.recordUpdate('run', run.id, client.baseUrl, { state: run.state });
  ctx.out.result([run.id, run.state, describeRunProgress(run)].map((cell) => ctx.out.server(cell)).join('\t'));
  reportDocument(ctx, asRecord(run.raw));
}

export async function wait(ctx: CommandContext, runId: string, options: WaitOptions): Promise<void> {
  checkOutputTarget(ctx, options.output, Boolean(options.force), { several: true });
  const client = await ctx.client();
  await waitAndSave(ctx, client, targetFor(ctx, 'run', runId, options), undefined, options);
}
