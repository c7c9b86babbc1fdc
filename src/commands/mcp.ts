// `assetgen mcp`: the MCP server on stdio. The SDK is loaded here only, when this command runs.
import type { CommandContext } from '../cli/context.js';

export async function mcp(ctx: CommandContext, options: { allowOutside?: boolean }): Promise<void> {
  const { serve } = await import('../mcp/server.js');
  await serve(ctx, { allowOutside: options.allowOutside === true });
}
