// list_jobs: the local journal (`assetgen jobs`), with how to resume what is unfinished.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../sdk.js';
import { resubmitToolCall, resumeToolCall, type ResubmitToolCall, type ResumeToolCall } from '../../cli/resume.js';
import { SUBMITTING } from '../../config/journal.js';
import { callCommand, type ServerScope } from '../call.js';
import { OUTPUT } from '../schemas.js';
import { defineTool } from '../tool.js';
import { LOCAL } from './common.js';

export function registerJobTools(server: McpServer, scope: ServerScope): void {
  defineTool(server, scope, 'list_jobs', {
    title: 'List paid jobs',
    description:
      'Video jobs, workflow runs and image generations started from this machine (the local journal), newest first, with their last known state. Unfinished ones carry `resume` (the command) and `resumeTool`: wait_video or wait_run with the id; for a submission whose answer never came back (state "submitting"), the same generate_image, create_video or run_workflow call with its idempotency_key, which gets what the first one paid for, not a second charge, if the service honours the key.',
    input: { limit: z.number().int().min(1).max(500).optional().describe('How many to list (default 20).') },
    output: OUTPUT.list_jobs,
    kind: LOCAL,
    async call(ctx, args) {
      const { jobs, onServiceNow } = await import('../../commands/jobs.js');
      const listed = await callCommand(ctx, jobs, { limit: args.limit ?? 20 });
      // The document has each job's command line; its tool call needs the journal's record of where
      // the job saves (output, overwrite), which the command line spells as flags.
      const saving = new Map(ctx.journal.list().map((entry) => [`${entry.baseUrl}\u0000${entry.kind}\u0000${entry.id}`, entry.resume]));
      const here = onServiceNow(ctx);
      const toolFor = (entry: (typeof listed.jobs)[number]): ResumeToolCall | ResubmitToolCall | null => {
        if (!entry.resume) return null;
        // A submission is sent again (same key, same request); a tool call has no --base-url, so
        // only one on the service the tools call now (elsewhere, `resume` is the command to run).
        if (entry.state === SUBMITTING) return entry.resubmit && here(entry.baseUrl) ? resubmitToolCall(entry.resubmit, ctx.cwd) : null;
        if (entry.kind === 'image') return null;
        return resumeToolCall(
          { kind: entry.kind, id: entry.id, ...saving.get(`${entry.baseUrl}\u0000${entry.kind}\u0000${entry.id}`) },
          ctx.cwd,
        );
      };
      return { result: { ...listed, jobs: listed.jobs.map((entry) => ({ ...entry, resumeTool: toolFor(entry) })) } };
    },
  });
}
