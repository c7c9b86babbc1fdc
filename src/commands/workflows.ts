// `assetgen workflows list` and `assetgen workflows run <id>`.
import { UsageError } from '../cli/errors.js';
import type { CommandContext } from '../cli/context.js';
import { paidCall } from '../cli/idempotency.js';
import { printTable, reportCredits } from '../cli/render.js';
import { sanitizeLine } from '../ui/sanitize.js';
import { asObject } from './generate.js';
import { followRun, resumeCommand } from './runs.js';

export async function list(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const workflows = await client.listWorkflows({ signal: ctx.signal });
  ctx.out.document({ workflows: workflows.map((workflow) => workflow.raw) });
  if (ctx.out.json) return;
  if (!workflows.length) {
    ctx.out.info('No saved workflows. Save one on the canvas first.');
    return;
  }
  const rows = workflows.map((workflow) =>
    [workflow.id, workflow.name ?? '', String(workflow.nodes.length), workflow.overridableNodes.join(',') || '-'].map(sanitizeLine),
  );
  printTable(ctx, ['ID', 'NAME', 'NODES', 'OVERRIDABLE'], rows);
}

interface RunOptions {
  set: string[];
  wait: boolean;
  output?: string;
  force?: boolean;
  idempotencyKey?: string;
}

export async function runWorkflow(ctx: CommandContext, workflowId: string, options: RunOptions): Promise<void> {
  const overrides = parseOverrides(options.set);
  const client = await ctx.client();
  const run = await paidCall(options.idempotencyKey, (idempotencyKey) =>
    client.runWorkflow(workflowId, overrides, { signal: ctx.signal, idempotencyKey }),
  );
  // On disk before any waiting: a paid run is never lost track of.
  ctx.journal.recordSubmitted({
    kind: 'run',
    id: run.id,
    baseUrl: client.baseUrl,
    state: run.state,
    label: workflowId,
    creditsCharged: run.credits.charged,
  });
  ctx.out.info(`Started run ${run.id} of ${workflowId}${run.totalNodes !== undefined ? ` (${run.totalNodes} nodes)` : ''}.`);
  reportCredits(ctx, run.credits);
  if (!options.wait) {
    ctx.out.info(`Follow it with: ${resumeCommand(ctx, run.id)}`);
    ctx.out.result(run.id);
    ctx.out.document(asObject(run.raw));
    return;
  }
  await followRun(ctx, client, run.id, run, options);
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
