// list_workflows, run_workflow, get_run, wait_run: the `workflows` and `runs` commands as tools.
// A run advances one node per poll: run_workflow and wait_run send one progress notification per node.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../sdk.js';
import { UsageError } from '../../cli/errors.js';
import { callCommand, runCall, type ServerScope } from '../call.js';
import { OUTPUT } from '../schemas.js';
import { confineOutput } from '../paths.js';
import { FOLLOW, idempotencyKey, maxWaitSeconds, overwrite, PAID, READ_ONLY, waitBudget } from './common.js';

const outputDir = z
  .string()
  .optional()
  .describe("Folder for the run's outputs, relative to the working directory; default: the working directory.");

// Loaded on the first call: the server answers `initialize` and `tools/list` without the commands.
const runCommands = () => import('../../commands/runs.js');

export function registerWorkflowTools(server: McpServer, scope: ServerScope): void {
  server.registerTool(
    'list_workflows',
    {
      title: 'List workflows',
      description:
        'Lists the saved workflows: id, name, description, node count, and the nodes whose prompt run_workflow can override. A workflow assetgen cannot use (an odd id) is left out and named in `skipped` with why.',
      inputSchema: {},
      outputSchema: OUTPUT.list_workflows,
      annotations: { ...READ_ONLY, title: 'List workflows' },
    },
    (_args, extra) =>
      runCall(scope, extra, async (ctx) => {
        const { withCredits } = await import('../../cli/charged.js');
        const client = await ctx.client();
        const workflows = await client.listWorkflows({ signal: ctx.signal });
        const result = withCredits(ctx, {
          workflows: workflows.map((workflow) => ({
            id: workflow.id,
            name: workflow.name,
            description: workflow.description,
            nodes: workflow.nodes.length,
            overridableNodes: workflow.nodes
              .filter((node) => node.overridable)
              .map((node) => ({ id: node.id, label: node.label, defaultPrompt: node.prompt })),
          })),
          skipped: workflows.skipped,
        });
        return { result };
      }),
  );

  server.registerTool(
    'run_workflow',
    {
      title: 'Run a workflow',
      description:
        'Starts a saved workflow (costs credits), follows it node by node (one progress notification per node) and saves its outputs. A run that outlasts max_wait_seconds is returned with its id and how to resume it (wait_run).',
      inputSchema: {
        id: z.string().describe('Workflow id (see list_workflows).'),
        overrides: z.record(z.string(), z.string()).optional().describe('New prompts for overridable nodes: {"<node id>": "<prompt>"}.'),
        output_dir: outputDir,
        overwrite,
        idempotency_key: idempotencyKey,
        max_wait_seconds: maxWaitSeconds,
      },
      outputSchema: OUTPUT.job,
      annotations: { ...PAID, title: 'Run a workflow' },
    },
    (args, extra) =>
      runCall(
        scope,
        extra,
        async (ctx) => {
          const output = runFolder(args.output_dir, ctx.cwd, scope);
          const set = Object.entries(args.overrides ?? {}).map(([node, prompt]) => {
            if (node.includes('=')) throw new UsageError(`Invalid override node "${node}": a node id has no "=".`);
            return `${node}=${prompt}`;
          });
          const { runWorkflow } = await import('../../commands/workflows.js');
          return {
            result: await callCommand(ctx, runWorkflow, args.id, {
              set,
              wait: true,
              output,
              force: args.overwrite,
              idempotencyKey: args.idempotency_key,
            }),
          };
        },
        { waitBudgetMs: waitBudget(args.max_wait_seconds) },
      ),
  );

  server.registerTool(
    'get_run',
    {
      title: 'Poll a run',
      description:
        'Polls a workflow run once and returns its state. On this service each poll advances the run by one node (and a poll with an API key costs a credit), so it is not marked read-only.',
      inputSchema: { id: z.string().describe('Run id (run_…).') },
      outputSchema: OUTPUT.poll,
      annotations: { ...FOLLOW, title: 'Poll a run' },
    },
    (args, extra) => runCall(scope, extra, async (ctx) => ({ result: await callCommand(ctx, (await runCommands()).get, args.id) })),
  );

  server.registerTool(
    'wait_run',
    {
      title: 'Wait for a run',
      description:
        'Follows a workflow run to its end (one progress notification per node) and saves its outputs; a run that outlasts max_wait_seconds is returned with how to resume.',
      inputSchema: { id: z.string().describe('Run id (run_…).'), output_dir: outputDir, overwrite, max_wait_seconds: maxWaitSeconds },
      outputSchema: OUTPUT.job,
      annotations: { ...FOLLOW, title: 'Wait for a run' },
    },
    (args, extra) =>
      runCall(
        scope,
        extra,
        async (ctx) => {
          const output = runFolder(args.output_dir, ctx.cwd, scope);
          return { result: await callCommand(ctx, (await runCommands()).wait, args.id, { output, force: args.overwrite }) };
        },
        { waitBudgetMs: waitBudget(args.max_wait_seconds) },
      ),
  );
}

/**
 * Where a run's outputs go: `output_dir` confined to the project (unless the server allows
 * otherwise), always a folder — `assets` and `assets/` mean the same here.
 */
function runFolder(outputDir: string | undefined, cwd: string, scope: ServerScope): string | undefined {
  const output = confineOutput(outputDir, cwd, scope.allowOutside, 'output_dir');
  return output === undefined || /[\\/]$/.test(output) ? output : `${output}/`;
}
