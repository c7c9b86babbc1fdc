// `assetgen agents`: GET /api/ai/agents (session only).
import type { CommandContext } from '../cli/context.js';
import { reportDocument, warnSkipped } from '../cli/report.js';
import { printTable } from '../cli/table.js';
import { sanitizeLine } from '../ui/sanitize.js';

export async function agents(ctx: CommandContext): Promise<void> {
  const client = await ctx.client('session');
  const list = await client.listAgents({ signal: ctx.signal });
  reportDocument(ctx, { agents: list.map((agent) => agent.raw), skipped: list.skipped });
  if (ctx.out.json) return;
  warnSkipped(ctx, 'agent', list.skipped);
  if (!list.length) {
    ctx.out.info('The service lists no agents.');
    return;
  }
  const rows = list.map((agent) => [agent.id, agent.kind ?? '', agent.name ?? '', agent.description ?? ''].map(sanitizeLine));
  printTable(ctx, ['ID', 'KIND', 'NAME', 'DESCRIPTION'], rows);
}
