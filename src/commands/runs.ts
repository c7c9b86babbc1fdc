// `assetgen runs get|wait <runId>`. Every poll advances the run by one node and may cost credits,
// so a run is never polled after it finished, and a run of N nodes is followed with exactly N polls.
import type { Run } from '../client/types.js';
import type { CommandContext } from '../cli/context.js';
import { asRecord, describeRunProgress, targetFor, waitAndSave } from '../cli/follow.js';
import { command } from '../cli/command.js';
import { renderCredits, renderSaved, withCredits } from '../cli/report.js';
import { checkOutputTarget } from '../cli/save.js';

interface WaitOptions {
  output?: string;
  force?: boolean;
}

/** `get`'s document is the service's own record; the client's reading of it, for render. */
const readRuns = new WeakMap<object, Run>();

export const get = command({
  async run(ctx: CommandContext, runId: string) {
    const client = await ctx.client();
    const run = await client.getRun(runId, { signal: ctx.signal });
    ctx.journal.recordUpdate('run', run.id, client.baseUrl, { state: run.state });
    const result = withCredits(ctx, asRecord(run.raw));
    readRuns.set(result, run);
    return result;
  },
  render(ctx, result) {
    // The record as the client read it: id, state and node progress.
    const run = readRuns.get(result)!;
    ctx.out.result([run.id, run.state, describeRunProgress(run)].map((cell) => ctx.out.server(cell)).join('\t'));
    renderCredits(ctx, result);
  },
});

export const wait = command({
  async run(ctx: CommandContext, runId: string, options: WaitOptions) {
    checkOutputTarget(ctx, options.output, Boolean(options.force), { several: true });
    const client = await ctx.client();
    return waitAndSave(ctx, client, targetFor(ctx, 'run', runId, options), undefined, options);
  },
  render: renderSaved,
});
