// list_workflows, run_workflow, get_run, wait_run: the `workflows` and `runs` commands as tools.
// A run advances one node per poll: run_workflow and wait_run send one progress notification per node.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../sdk.js';
import { UsageError } from '../../cli/errors.js';
import { callCommand, type ServerScope } from '../call.js';
import { OUTPUT } from '../schemas.js';
import { defineTool } from '../tool.js';
import { FOLLOW, idempotencyKey, maxWaitSeconds, overwrite, PAID, READ_ONLY, waitBudget } from './common.js';

const outputDir = z
  .string()
  .optional()
  .describe("Folder for the run's outputs, relative to the working directory; default: the working directory.");

// Loaded on the first call: the server answers `initialize` and `tools/list` without the commands.
const runCommands = () => import('../../commands/runs.js');

export function registerWorkflowTools(server: McpServer, scope: ServerScope): void {
  defineTool(server, scope, 'list_workflows', {
    title: 'List workflows',
    description:
      'Lists the saved workflows: id, name, description, node count, and the nodes whose prompt run_workflow can override. A workflow assetgen cannot use (an odd id) is left out and named in `skipped` with why.',
    input: {},
    output: OUTPUT.list_workflows,
    kind: READ_ONLY,
    async call(ctx) {
      const { withCredits } = await import('../../cli/charged.js');
      const { sanitizeLine, sanitizeText } = await import('../../ui/sanitize.js');
      const client = await ctx.client();
      const workflows = await client.listWorkflows({ signal: ctx.signal });
      // The service's words reach the agent as printable text (no escape, control or bidi characters), as they reach a terminal.
      const line = (text: string | undefined) => (text === undefined ? undefined : sanitizeLine(text));
      const text = (value: string | undefined) => (value === undefined ? undefined : sanitizeText(value));
      const result = withCredits(ctx, {
        workflows: workflows.map((workflow) => ({
          id: workflow.id,
          name: line(workflow.name),
          description: text(workflow.description),
          nodes: workflow.nodes.length,
          overridableNodes: workflow.nodes
            .filter((node) => node.overridable)
            .map((node) => ({ id: node.id, label: line(node.label), defaultPrompt: text(node.prompt) })),
        })),
        skipped: workflows.skipped,
      });
      return { result };
    },
  });

  defineTool(server, scope, 'run_workflow', {
    title: 'Run a workflow',
    description:
      'Starts a saved workflow (costs credits), follows it node by node (one progress notification per node) and saves its outputs. A run that outlasts max_wait_seconds is returned with its id and how to resume it (wait_run).',
    input: {
      id: z.string().describe('Workflow id (see list_workflows).'),
      overrides: z.record(z.string(), z.string()).optional().describe('New prompts for overridable nodes: {"<node id>": "<prompt>"}.'),
      output_dir: outputDir,
      overwrite,
      idempotency_key: idempotencyKey,
      max_wait_seconds: maxWaitSeconds,
    },
    output: OUTPUT.job,
    kind: PAID,
    paths: { output_dir: 'folder' },
    waitBudgetMs: (args) => waitBudget(args.max_wait_seconds),
    async call(ctx, args) {
      const set = overridePairs(args.overrides ?? {});
      const { runWorkflow } = await import('../../commands/workflows.js');
      return {
        result: await callCommand(ctx, runWorkflow, args.id, {
          set,
          wait: true,
          output: args.output_dir,
          force: args.overwrite,
          idempotencyKey: args.idempotency_key,
        }),
      };
    },
  });

  defineTool(server, scope, 'get_run', {
    title: 'Poll a run',
    description:
      'Polls a workflow run once and returns its state. On this service each poll advances the run by one node (and a poll with an API key costs a credit), so it is not marked read-only.',
    input: { id: z.string().describe('Run id (run_…).') },
    output: OUTPUT.poll,
    kind: FOLLOW,
    call: async (ctx, args) => ({ result: await callCommand(ctx, (await runCommands()).get, args.id) }),
  });

  defineTool(server, scope, 'wait_run', {
    title: 'Wait for a run',
    description:
      'Follows a workflow run to its end (one progress notification per node) and saves its outputs; a run that outlasts max_wait_seconds is returned with how to resume.',
    input: { id: z.string().describe('Run id (run_…).'), output_dir: outputDir, overwrite, max_wait_seconds: maxWaitSeconds },
    output: OUTPUT.job,
    kind: FOLLOW,
    paths: { output_dir: 'folder' },
    waitBudgetMs: (args) => waitBudget(args.max_wait_seconds),
    call: async (ctx, args) => ({
      result: await callCommand(ctx, (await runCommands()).wait, args.id, { output: args.output_dir, force: args.overwrite }),
    }),
  });
}

/**
 * `overrides` as the command's `node=prompt` pairs, checked here so that a refusal names this
 * argument: a node id is not blank, has no "=", and is given once (ids are trimmed).
 */
function overridePairs(overrides: Record<string, string>): string[] {
  const seen = new Set<string>();
  return Object.entries(overrides).map(([node, prompt]) => {
    const id = node.trim();
    if (!id || id.includes('='))
      throw new UsageError(`Invalid node id ${JSON.stringify(node)} in overrides: a node id is not blank and has no "=".`);
    if (seen.has(id)) throw new UsageError(`overrides names node "${id}" twice.`);
    seen.add(id);
    return `${id}=${prompt}`;
  });
}
