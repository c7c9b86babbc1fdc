// list_takes and pick_variant: `assetgen takes` and `assetgen pick` as tools, and the contact sheet
// other tools (build, generate_image) return beside their result, so an agent shown the takes can
// say "pick 3" without guessing which file is which. No service call, no credits.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CommandContext } from '../../cli/context.js';
import { callCommand, type ServerScope } from '../call.js';
import { OUTPUT } from '../schemas.js';
import { z } from '../sdk.js';
import { defineTool } from '../tool.js';
import { imageContent } from './assets.js';
import { LOCAL_EDIT } from './common.js';
import { projectManifest } from '../project.js';

/** At most this many contact sheets come back with one build: each is up to the inline image cap. */
export const CONTACT_SHEETS_PER_CALL = 4;

export function registerTakeTools(server: McpServer, scope: ServerScope): void {
  defineTool(server, scope, 'list_takes', {
    title: "Show an asset's takes",
    description:
      "Shows the takes of a project asset built with variants (or more takes): each take's number, file, credits and numbers that help choose (size, drawn area, colours, transparency), and one contact sheet image with every take numbered and the picked one framed. No service call, no credits. Then pick_variant with the number the user chose.",
    input: { id: z.string().min(1).describe('The asset id in assetgen.yaml.') },
    output: OUTPUT.list_takes,
    kind: LOCAL_EDIT,
    async call(ctx, args) {
      const listed = await listTakes(ctx, args.id, scope);
      // Each take carries `pick`, the command line (as in --json), and `pickTool`: the pick_variant call that picks it.
      const takes = listed.takes.map((take) => ({
        ...take,
        pickTool: { tool: 'pick_variant' as const, arguments: { id: listed.id, take: take.k } },
      }));
      const result = { ...listed, takes };
      return { result, content: imageContent(result.contactSheet.file) };
    },
  });

  defineTool(server, scope, 'pick_variant', {
    title: "Pick one of an asset's takes",
    description:
      'Makes take k of a project asset its output (the file in `out`), re-running its post steps from that take: no service call, no credits. Every later build, sheet and checkout uses the pick. Prefer this to generating again when an existing take will do (see list_takes).',
    input: {
      id: z.string().min(1).describe('The asset id in assetgen.yaml.'),
      take: z.number().int().min(1).describe('The take number, as list_takes and the contact sheet show it.'),
    },
    output: OUTPUT.pick_variant,
    kind: LOCAL_EDIT,
    async call(ctx, args) {
      const file = await projectManifest(ctx.cwd, scope.allowOutside, ctx.frontEnd, 'pick_variant would write its output there');
      const { pick } = await import('../../commands/project/pick.js');
      return { result: await callCommand(ctx, pick, args.id, String(args.take), { file }) };
    },
  });
}

/** `assetgen takes <id>` on the server's project: the takes and the contact sheet it wrote. */
async function listTakes(ctx: CommandContext, id: string, scope: ServerScope) {
  const file = await projectManifest(ctx.cwd, scope.allowOutside, ctx.frontEnd, 'list_takes would write its contact sheet there');
  const { takes } = await import('../../commands/project/takes.js');
  return callCommand(ctx, takes, id, { file });
}

/**
 * The contact sheets of the build's assets that made takes, as image content (at most
 * CONTACT_SHEETS_PER_CALL; a note names the rest and list_takes).
 */
export async function builtContactSheets(
  ctx: CommandContext,
  scope: ServerScope,
  items: readonly { id: string; outcome?: string; takes?: readonly unknown[] }[],
): Promise<ReturnType<typeof imageContent>> {
  const withTakes = items.filter((item) => (item.takes?.length ?? 0) > 1 && (item.outcome === 'built' || item.outcome === 'resumed'));
  const content: ReturnType<typeof imageContent> = [];
  for (const item of withTakes.slice(0, CONTACT_SHEETS_PER_CALL)) {
    const looked = await listTakes(ctx, item.id, scope);
    content.push({ type: 'text', text: `Takes of ${item.id} (pick one with pick_variant):` }, ...imageContent(looked.contactSheet.file));
  }
  const rest = withTakes.slice(CONTACT_SHEETS_PER_CALL).map((item) => item.id);
  if (rest.length) content.push({ type: 'text', text: `Also made takes (see list_takes): ${rest.join(', ')}.` });
  return content;
}
