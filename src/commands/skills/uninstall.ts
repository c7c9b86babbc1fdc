// `assetgen skills uninstall`: remove exactly what the manifest lists (filtered by agent, scope and
// project), asking first on a terminal.
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { confirmOrCancel } from '../../cli/prompt.js';
import { readManifest } from '../../installer/manifest.js';
import { planMcpRemoval } from '../../installer/mcp-register.js';
import { applyUninstall, planUninstall } from '../../installer/uninstall.js';
import { applyMcpRemovals, describeMcpRemovals, showMcpRemovals } from './mcp.js';
import { command } from '../../cli/command.js';
import { shownAsItRan } from './plan.js';
import { agentsByIds, parseScope } from './options.js';
import { describeRemovals, reportRemoved, showRemovals } from './view.js';

export interface UninstallOptions {
  agent: string[];
  scope?: string;
  projectDir?: string;
  yes?: boolean;
  dryRun?: boolean;
  force?: boolean;
}

export const uninstall = command({ run: uninstallSkill, render: shownAsItRan });

async function uninstallSkill(ctx: CommandContext, options: UninstallOptions) {
  agentsByIds(options.agent);
  const scope = parseScope(options.scope);
  if (scope === 'user' && options.projectDir) throw new UsageError('--project-dir applies to project scope only.');
  const projectDir = options.projectDir ? path.resolve(ctx.cwd, options.projectDir) : undefined;
  const manifest = readManifest(ctx.env);
  const filter = { agentIds: options.agent, scope, projectDir };
  const removals = planUninstall(manifest, Boolean(options.force), filter);
  const mcpRemovals = planMcpRemoval(manifest, Boolean(options.force), filter);
  if (!removals.length && !mcpRemovals.length) {
    ctx.out.info('Nothing to remove: the installer has no files recorded for that.');
    return { action: 'uninstall', dryRun: Boolean(options.dryRun), changed: false, files: [] as unknown[] };
  }
  showRemovals(ctx, removals);
  showMcpRemovals(ctx, mcpRemovals);
  const document = {
    action: 'uninstall',
    dryRun: Boolean(options.dryRun),
    files: describeRemovals(removals),
    ...(mcpRemovals.length ? { mcp: describeMcpRemovals(mcpRemovals) } : {}),
  };
  if (options.dryRun) {
    ctx.out.info('Dry run: nothing was removed.');
    return { ...document, changed: false };
  }
  // Dropping an agent from a shared copy or forgetting a gone file deletes nothing: no question.
  if (ctx.interactive && !options.yes && [...removals, ...mcpRemovals].some((r) => r.action === 'remove')) {
    await confirmOrCancel(ctx, 'Remove these files?', {
      default: true,
      untouched: 'changed',
      cancelled: 'Cancelled: nothing was removed.',
    });
  }
  applyUninstall(removals, ctx.env);
  applyMcpRemovals(ctx, mcpRemovals);
  reportRemoved(ctx, removals);
  return { ...document, changed: true };
}
