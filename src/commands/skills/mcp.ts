// The MCP part of install and uninstall (`--mcp`): what will be added to or removed from each
// agent's MCP configuration, shown beside the skill files, applied with them.
import type { CommandContext } from '../../cli/context.js';
import type { AgentRecord, Scope } from '../../installer/agents.js';
import { readManifest } from '../../installer/manifest.js';
import { applyMcp, applyMcpRemoval, mcpChanges, planMcp, type McpPlanItem, type McpRemoval } from '../../installer/mcp-register.js';
import { packageVersion } from '../../package-info.cjs';
import type { ExtraPlan } from './plan.js';

const names = (item: McpPlanItem): string => item.agents.map((agent) => agent.name).join(', ');

/** The MCP entries of an install, as an extra plan for carryOut. */
export function mcpInstallPlan(ctx: CommandContext, agents: AgentRecord[], scope: Scope, projectDir: string, force: boolean): ExtraPlan {
  const items = planMcp(agents, scope, projectDir, ctx.env, force);
  return {
    changes: mcpChanges(items, readManifest(ctx.env)),
    show: () => {
      ctx.out.info(ctx.out.style.bold(`MCP server (assetgen mcp; ${scope} scope)`));
      for (const item of items) {
        if (item.action === 'unsupported') ctx.out.info(`  skip      ${item.reason}`);
        else if (item.action === 'conflict') ctx.out.info(`  conflict  ${item.path} (${names(item)}): ${item.reason}; left as it is`);
        else
          ctx.out.info(
            `  ${item.action === 'add' ? 'add' : 'unchanged'}${item.action === 'add' ? '       ' : ' '} ${item.path} (${names(item)})`,
          );
      }
    },
    apply: () => {
      applyMcp(items, ctx.env, packageVersion());
      const added = items.filter((item) => item.action === 'add');
      if (added.length) ctx.out.info(`Registered the assetgen MCP server for ${added.map(names).join(', ')} (no key written).`);
      for (const item of added) ctx.out.result(item.path!);
    },
    describe: {
      mcp: items.map((item) => ({
        agents: item.agents.map((agent) => agent.id),
        path: item.path,
        action: item.action,
        ...(item.format ? { format: item.format } : {}),
        ...(item.reason ? { reason: item.reason } : {}),
      })),
    },
  };
}

export function showMcpRemovals(ctx: CommandContext, removals: McpRemoval[]): void {
  if (!removals.length) return;
  ctx.out.info(ctx.out.style.bold('MCP server entries'));
  const notes: Record<McpRemoval['action'], string> = {
    remove: '',
    missing: ' (already gone: forgotten)',
    edited: ' (changed since: kept)',
    detach: ' (other agents still use it: kept)',
  };
  for (const removal of removals) ctx.out.info(`  ${removal.action.padEnd(9)} ${removal.entry.path}${notes[removal.action]}`);
}

export function describeMcpRemovals(removals: McpRemoval[]) {
  return removals.map((removal) => ({ path: removal.entry.path, action: removal.action, agents: removal.entry.agents }));
}

export function applyMcpRemovals(ctx: CommandContext, removals: McpRemoval[]): void {
  applyMcpRemoval(removals, ctx.env);
  const removed = removals.filter((removal) => removal.action === 'remove').length;
  if (removed) ctx.out.info(`Removed the assetgen MCP server from ${removed} configuration file${removed === 1 ? '' : 's'}.`);
}
