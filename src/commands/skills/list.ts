// `assetgen skills list`: each installed copy with its state, and the agents detected here.
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import { printTable } from '../../cli/table.js';
import { CODING_AGENTS, detectAgents } from '../../installer/agents.js';
import { manifestPath, readManifest } from '../../installer/manifest.js';
import { copyStatuses, fileStatuses } from '../../installer/status.js';
import { skillRoot } from '../../installer/targets.js';

export const list = command({ run: listCopies, render: renderCopies });

async function listCopies(ctx: CommandContext) {
  const manifest = readManifest(ctx.env);
  const detected = detectAgents(ctx.env).map((agent) => agent.id);
  return {
    installed: fileStatuses(manifest),
    mcp: (manifest.mcp ?? []).map(({ path, format, agents, scope }) => ({ path, format, agents, scope })),
    detected,
    manifest: manifestPath(ctx.env),
    agents: CODING_AGENTS.map(({ id, name, projectDir }) => ({ id, name, projectDir, detected: detected.includes(id) })),
  };
}

async function renderCopies(ctx: CommandContext, result: Awaited<ReturnType<typeof listCopies>>): Promise<void> {
  if (ctx.out.json) return;
  const { installed: files, detected } = result;
  // The copies are grouped by the installer's manifest, as recorded (read again: the view groups files by copy).
  const manifest = readManifest(ctx.env);
  if (!files.length) ctx.out.info('The assetgen skill is not installed yet: run `assetgen install`.');
  else {
    const rows = copyStatuses(manifest, files).map(({ target, state, versions }) => [
      state,
      target.scope,
      versions.join(','),
      target.agents.map((agent) => agent.id).join(','),
      skillRoot(target.skillsDir),
    ]);
    await printTable(ctx, ['STATE', 'SCOPE', 'VERSION', 'AGENTS', 'PATH'], rows);
  }
  for (const entry of result.mcp)
    ctx.out.info(`MCP server registered for ${entry.agents.join(',')} (${entry.scope} scope) in ${entry.path}.`);
  ctx.out.info(`Detected agents: ${detected.length ? detected.join(', ') : 'none'}. Manifest: ${result.manifest}.`);
}
