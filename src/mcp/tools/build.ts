// build: `assetgen build` over the project's assetgen.yaml, as a tool — the plan (dry run) or the
// per-asset outcome, on the same command, lock and kit as the terminal's.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from '../sdk.js';
import path from 'node:path';
import { VIDEO_JOB_COST } from '../../api/endpoints.js';
import { UsageError } from '../../cli/errors.js';
import type { FrontEnd } from '../../cli/front-end.js';
import { folderIn, PathRefusedError } from '../../files/confine.js';
import { callCommand, type ServerScope } from '../call.js';
import { OUTPUT } from '../schemas.js';
import { defineTool } from '../tool.js';
import { PAID } from './common.js';

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
    },
    output: OUTPUT.build,
    kind: PAID,
    async call(ctx, args) {
      const file = await projectManifest(ctx.cwd, scope.allowOutside, ctx.frontEnd);
      const { build } = await import('../../commands/project/build.js');
      const result = await callCommand(ctx, build, args.ids ?? [], {
        file,
        dryRun: args.dry_run,
        maxCredits: args.max_credits,
        yes: args.confirm_videos,
        concurrency: 4,
      });
      return { result };
    },
  });
}

/**
 * The manifest a build tool call builds: found from the working directory upward like the
 * command's, but (without --allow-outside) only inside the working directory, by the one
 * confinement rule: a project above it would be written outside what the server may touch.
 */
async function projectManifest(cwd: string, allowOutside: boolean, words: FrontEnd): Promise<string> {
  const { locateManifest } = await import('../../pipeline/manifest.js');
  const file = locateManifest(cwd, undefined, words.otherManifest);
  if (allowOutside) return file;
  try {
    folderIn(cwd, path.dirname(file), path.dirname(file));
  } catch (error) {
    if (!(error instanceof PathRefusedError)) throw error;
    throw new UsageError(
      `The nearest assetgen.yaml is ${file}, outside the server's working directory (${cwd}): the build would write there.`,
      'Start `assetgen mcp` in the project folder (where assetgen.yaml is), or with --allow-outside.',
    );
  }
  return file;
}
