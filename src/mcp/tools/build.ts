// build: `assetgen build` over the project's assetgen.yaml, as a tool — the plan (dry run) or the
// per-asset outcome, on the same command, lock and kit as the terminal's.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../sdk.js';
import { VIDEO_JOB_COST } from '../../api/endpoints.js';
import { callCommand, type ServerScope } from '../call.js';
import { projectManifest } from '../project.js';
import { OUTPUT } from '../schemas.js';
import { defineTool } from '../tool.js';
import { LOCAL, PAID, takeCount } from './common.js';
import { builtContactSheets } from './takes.js';
import type { BuildDocument } from '../../commands/project/records.js';

/** The build tool's call that resumes one asset's paid work, which the lock holds: a build of that asset. */
const resumeBuild = (id: string) => ({ tool: 'build' as const, arguments: { ids: [id] } });

/**
 * A build's document as the tool returns it: an item with paid work to resume (capped before a
 * charged poll, failed after its job was recorded) carries `resume`, the command line as in
 * --json, and `resumeTool`, this tool's call that resumes it. A dry run's is as it is.
 */
function withResumeTools(document: BuildDocument): BuildDocument {
  if ('dryRun' in document) return document;
  return { ...document, items: document.items.map((item) => (item.resume ? { ...item, resumeTool: resumeBuild(item.id) } : item)) };
}

export function registerBuildTools(server: McpServer, scope: ServerScope): void {
  defineTool(server, scope, 'build', {
    title: 'Build the project manifest',
    description: `Build the assets listed in the project's assetgen.yaml that are new or changed (assetgen.lock records what was built; up-to-date assets cost nothing, paid work interrupted earlier is resumed). Use dry_run first to see the plan and its cost. A plan with videos (${VIDEO_JOB_COST} credits each) needs confirm_videos: true, only when the user asked for them.`,
    input: {
      ids: z.array(z.string().min(1)).optional().describe('Asset ids or globs (default: every asset).'),
      dry_run: z.boolean().optional().describe('Only the plan and its estimated cost; nothing is sent.'),
      max_credits: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          "Never spend more than this many credits by the service's own figures (default: the manifest's budget); assets of unknown price are held back.",
        ),
      confirm_videos: z.boolean().optional().describe(`Confirm the video jobs in the plan (${VIDEO_JOB_COST} credits each).`),
      more: takeCount(
        'K more takes of each image asset in ids, earlier takes kept (a paid call each; dry_run shows the cost). Only when the user wants other options and no existing take will do (see list_takes).',
      ),
      check: z
        .boolean()
        .optional()
        .describe(
          "Then measure the outputs and hold them to the manifest's checks: rules, as check_assets does (`checks` in the result; an error when a rule is broken). Not with dry_run.",
        ),
    },
    output: OUTPUT.build,
    kind: PAID,
    async call(ctx, args) {
      const file = await projectManifest(ctx.cwd, scope.allowOutside, ctx.frontEnd, 'the build would write there');
      const { build } = await import('../../commands/project/build.js');
      // The document with each item's `resumeTool` (also the one a capped or failed build's error carries).
      const forTool: typeof build = { ...build, document: (done) => withResumeTools(build.document(done)) };
      const result = await callCommand(ctx, forTool, args.ids ?? [], {
        file,
        dryRun: args.dry_run,
        maxCredits: args.max_credits,
        yes: args.confirm_videos,
        more: args.more,
        check: args.check,
        concurrency: 4,
      });
      // Takes made by this build, shown numbered: the agent can ask the user to choose, then pick_variant.
      const content = 'dryRun' in result ? [] : await builtContactSheets(ctx, scope, result.items);
      return { result, content };
    },
  });

  defineTool(server, scope, 'check_assets', {
    title: "Check the project's output images",
    description:
      "Measures the output images of the project's assets as they are on disk (alpha, the drawn area and its share of the canvas, colour count, a tile's seam, how unlike its matrix or sheet siblings each looks) and holds them to the checks: rules of assetgen.yaml. No service call, no credits. A broken rule is an error naming it with its figure; the result lists every figure. Run it after building, before telling the user the assets are done.",
    input: { ids: z.array(z.string().min(1)).optional().describe('Asset ids or globs (default: every asset).') },
    output: OUTPUT.check_assets,
    kind: LOCAL,
    async call(ctx, args) {
      const file = await projectManifest(ctx.cwd, scope.allowOutside, ctx.frontEnd, 'check_assets would read the project there');
      const { check } = await import('../../commands/project/check.js');
      return { result: await callCommand(ctx, check, args.ids ?? [], { file }) };
    },
  });
}
