// create_video, get_video, wait_video: the `video` commands as tools. A video job is paid in full
// at submission, so create_video needs the cost confirmed — `confirm_credits: <the price>` in the call, or
// the person accepting an elicitation that shows the cost — and without either charges nothing.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../sdk.js';
import { VIDEO_JOB_COST } from '../../api/endpoints.js';
import { absoluteOutput, resumeToolCall, toolArgumentsText } from '../../cli/resume.js';
import { callCommand, type Extra, type ServerScope } from '../call.js';
import { confirmCost } from '../consent.js';
import { OUTPUT } from '../schemas.js';
import { defineTool } from '../tool.js';
import { FOLLOW, idempotencyKey, maxWaitSeconds, overwrite, PAID, READ_ONLY, waitBudget } from './common.js';

const output = z
  .string()
  .optional()
  .describe(
    'File, or folder (trailing slash or existing) for the video, relative to the working directory; default: the working directory.',
  );

// Loaded on the first call: the server answers `initialize` and `tools/list` without the commands.
const videoCommands = () => import('../../commands/video.js');

export function registerVideoTools(server: McpServer, scope: ServerScope): void {
  defineTool(server, scope, 'create_video', {
    title: `Create a video (${VIDEO_JOB_COST} credits)`,
    description: `Submits a video job. It costs ${VIDEO_JOB_COST} credits, charged at submission and refunded by the service if the job fails. Pass confirm_credits: ${VIDEO_JOB_COST} to confirm the charge (or accept the confirmation your client shows, if it supports elicitation); without a confirmation nothing is charged. Returns the job id; follow it with wait_video (or pass wait: true).`,
    input: {
      prompt: z.string().describe('What the video shows, e.g. "torch flickering on a dungeon wall".'),
      agent: z.string().optional().describe('Video agent id (default: the service default; see list_agents).'),
      duration_seconds: z.number().positive().optional().describe('Length in seconds.'),
      aspect_ratio: z.string().optional().describe('e.g. 16:9, 1:1, 9:16.'),
      confirm_credits: z.number().optional().describe(`Must be ${VIDEO_JOB_COST}: confirms the ${VIDEO_JOB_COST}-credit charge.`),
      wait: z.boolean().optional().describe('Also wait for the job and save the video (default false: return the job id at once).'),
      output,
      overwrite,
      idempotency_key: idempotencyKey,
      max_wait_seconds: maxWaitSeconds,
    },
    output: OUTPUT.job,
    kind: PAID,
    paths: { output: 'file-or-folder' },
    waitBudgetMs: (args) => (args.wait ? waitBudget(args.max_wait_seconds) : undefined),
    async call(ctx, args, extra) {
      await confirmVideoCharge(server, extra, args.confirm_credits);
      const result = await callCommand(ctx, (await videoCommands()).create, args.prompt, {
        agent: args.agent,
        duration: args.duration_seconds,
        aspectRatio: args.aspect_ratio,
        yes: true,
        wait: args.wait === true,
        output: args.output,
        force: args.overwrite,
        idempotencyKey: args.idempotency_key,
      });
      if (args.wait) return { result };
      // Following the job saves where this call was told to: the hint carries `output` and `overwrite`.
      const { id } = result.job as { id: string };
      const resume = resumeToolCall({ kind: 'video', id, output: absoluteOutput(args.output, ctx.cwd), force: args.overwrite }, ctx.cwd);
      const next = `Call ${resume.tool} with ${toolArgumentsText(resume.arguments)} to follow it and save the video (no new charge).`;
      return { result: { ...result, resume, next } };
    },
  });

  defineTool(server, scope, 'get_video', {
    title: 'Poll a video job',
    description: 'Polls a video job once: its state, progress, the video URL once done, and whether a failed job was refunded.',
    input: { id: z.string().describe('Video job id (vid_…).') },
    output: OUTPUT.poll,
    kind: READ_ONLY,
    call: async (ctx, args) => ({ result: await callCommand(ctx, (await videoCommands()).get, args.id) }),
  });

  defineTool(server, scope, 'wait_video', {
    title: 'Wait for a video job',
    description:
      'Follows a video job (progress notifications on every poll) and saves the video. A failed job is an error that reports the refund. A job that outlasts max_wait_seconds is returned with its id and how to resume (call wait_video again).',
    input: { id: z.string().describe('Video job id (vid_…).'), output, overwrite, max_wait_seconds: maxWaitSeconds },
    output: OUTPUT.job,
    kind: FOLLOW,
    paths: { output: 'file-or-folder' },
    waitBudgetMs: (args) => waitBudget(args.max_wait_seconds),
    call: async (ctx, args) => ({
      result: await callCommand(ctx, (await videoCommands()).wait, args.id, { output: args.output, force: args.overwrite }),
    }),
  });
}

/** The charge is confirmed by `confirm_credits`, or by the person through an elicitation; else nothing is sent. */
function confirmVideoCharge(server: McpServer, extra: Extra, confirmCredits: number | undefined): Promise<void> {
  return confirmCost(server, extra, {
    argument: 'confirm_credits',
    expected: VIDEO_JOB_COST,
    given: confirmCredits,
    tool: 'create_video',
    cost: `A video job costs ${VIDEO_JOB_COST} credits`,
    amount: `${VIDEO_JOB_COST} credits`,
    question: `A video job costs ${VIDEO_JOB_COST} credits, charged now (refunded automatically if the job fails). Submit it?`,
    title: `Spend ${VIDEO_JOB_COST} credits`,
    notDone: 'no video job was submitted',
  });
}
