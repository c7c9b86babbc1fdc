// `assetgen runs get|wait <runId>`. Every poll advances the run by one node and may cost credits,
// so a run is never polled after it finished, and a run of N nodes is followed with exactly N polls.
import type { Run } from '../client/types.js';
import type { CommandContext } from '../cli/context.js';
import { asRecord, describeRunProgress, targetFor, waitAndSave } from '../cli/follow.js';
import { command } from '../cli/command.js';
import { renderCredits, withCredits, type Charged } from '../cli/charged.js';
import { renderSaved } from '../cli/report.js';
import { checkOutputTarget } from '../cli/save.js';

interface WaitOptions {
  output?: string;
  force?: boolean;
}

/** `get`: the service's own record (the --json document, `credits` added) and the client's reading of it, which people see. */
interface RunRecord {
  document: Charged<Record<string, unknown>>;
  run: Run;
}

export const get = command({
  async run(ctx: CommandContext, runId: string): Promise<RunRecord> {
    const client = await ctx.client();
    const run = await client.getRun(runId, { signal: ctx.signal });
    ctx.journal.recordUpdate('run', run.id, client.baseUrl, { state: run.state });
    return { document: withCredits(ctx, asRecord(run.raw)), run };
  },
  render(ctx, { run, document }) {
    // The record as the client read it: id, state and node progress.
    ctx.out.result([run.id, run.state, describeRunProgress(run)].map((cell) => ctx.out.server(cell)).join('\t'));
    renderCredits(ctx, document);
  },
  document: (result) => result.document,
});

export const wait = command({
  async run(ctx: CommandContext, runId: string, options: WaitOptions) {
    // Its files are named `<run id>-<node>`: any saved there already is refused before a (charged) poll.
    checkOutputTarget(ctx, options.output, Boolean(options.force), { several: true, stem: runId });
    const client = await ctx.client();
    return waitAndSave(ctx, client, targetFor(ctx, 'run', runId, options), undefined, options);
  },
  render: renderSaved,
});
