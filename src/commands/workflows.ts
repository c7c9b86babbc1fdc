// `assetgen workflows list` and `assetgen workflows run <id>`.
import type { CommandContext } from '../cli/context.js';
import { UsageError } from '../cli/errors.js';
import { asRecord, journalPaidJob, leaveJob, targetFor, waitAndSave } from '../cli/follow.js';
import { paidCall } from '../cli/idempotency.js';
import { command } from '../cli/command.js';
import { renderCredits, withCredits } from '../cli/charged.js';
import { renderPaidJob, warnSkipped } from '../cli/report.js';
import { absoluteOutput, withPositional } from '../cli/resume.js';
import { checkOutputTarget } from '../cli/save.js';
import { printTable } from '../cli/table.js';
import { normalizeWorkflows } from '../client/lists.js';
import { sanitizeLine } from '../ui/sanitize.js';

export const list = command({
  async run(ctx: CommandContext) {
    const client = await ctx.client();
    const workflows = await client.listWorkflows({ signal: ctx.signal });
    return withCredits(ctx, { workflows: workflows.map<unknown>((workflow) => workflow.raw), skipped: workflows.skipped });
  },
  async render(ctx, result) {
    renderCredits(ctx, result);
    if (ctx.out.json) return;
    warnSkipped(ctx, 'workflow', result.skipped);
    // The records read the way the client reads them.
    const workflows = normalizeWorkflows({ workflows: result.workflows });
    if (!workflows.length) {
      ctx.out.info('No saved workflows. Save one on the canvas first.');
      return;
    }
    const rows = workflows.map((workflow) =>
      [workflow.id, workflow.name ?? '', String(workflow.nodes.length), workflow.overridableNodes.join(',') || '-'].map(sanitizeLine),
    );
    await printTable(ctx, ['ID', 'NAME', 'NODES', 'OVERRIDABLE'], rows);
  },
});

interface RunOptions {
  set: string[];
  wait: boolean;
  output?: string;
  force?: boolean;
  idempotencyKey?: string;
}

export const runWorkflow = command({
  run: startWorkflow,
  render: renderPaidJob,
});

async function startWorkflow(ctx: CommandContext, workflowId: string, options: RunOptions) {
  const overrides = parseOverrides(options.set);
  checkOutputTarget(ctx, options.output, Boolean(options.force), { several: true });
  const client = await ctx.client();
  const run = await paidCall(
    ctx,
    options.idempotencyKey,
    (key) => client.runWorkflow(workflowId, overrides, { signal: ctx.signal, ...key }),
    undefined,
    undefined,
    {
      kind: 'run',
      baseUrl: client.baseUrl,
      label: workflowId,
      // The same request again, with the same key: the run the first one started, not a second charge.
      resubmit: (key) =>
        withPositional(['workflows', 'run'], workflowId, [
          ...options.set.flatMap((set) => ['-s', set]),
          '-o',
          absoluteOutput(options.output, ctx.cwd),
          ...(options.force ? ['--force'] : []),
          '--idempotency-key',
          key,
        ]),
    },
  );
  const target = targetFor(ctx, 'run', run.id, options);
  // On disk before any waiting: a paid run is never lost track of.
  // A replay of the submission (its answer lost before) charged nothing now: the run cost what the first one paid.
  journalPaidJob(ctx, client, target, {
    state: run.state,
    label: workflowId,
    creditsCharged: run.credits.paidEarlier ?? run.credits.charged,
  });
  ctx.out.info(
    `Started run ${run.id} of ${ctx.out.server(workflowId)}${run.totalNodes !== undefined ? ` (${run.totalNodes} nodes)` : ''}.`,
  );
  if (!options.wait) {
    const { resume } = leaveJob(ctx, target, 'Follow it with');
    return withCredits(ctx, { ...asRecord(run.raw), job: { id: run.id, kind: 'run' as const, resume } });
  }
  return waitAndSave(ctx, client, target, run, options);
}

/** `--set node=prompt` pairs; the prompt may itself contain `=`. */
export function parseOverrides(pairs: string[]): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const node = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (!node)
      throw new UsageError(
        `Invalid --set "${pair}".`,
        'Use --set <node>=<prompt>, e.g. --set character="a dwarf miner". See `assetgen workflows list` for overridable nodes.',
      );
    if (node in overrides) throw new UsageError(`--set names node "${node}" twice.`);
    overrides[node] = pair.slice(eq + 1);
  }
  return overrides;
}
