// How the skills commands show a plan and what they did: the files per target for a person, and
// the same plan described for --json.
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { plural } from '../../cli/credits.js';
import { findAgent, skillsDir } from '../../installer/agents.js';
import type { PlannedFile } from '../../installer/install.js';
import { skillRoot, type Target } from '../../installer/targets.js';
import type { PlannedRemoval } from '../../installer/uninstall.js';

const ACTION_LABEL: Record<PlannedFile['action'], string> = {
  create: 'create',
  unchanged: 'unchanged',
  update: 'update',
  overwrite: 'overwrite',
  edited: 'keep',
  'keep-edited': 'keep',
  pending: 'keep',
  conflict: 'skip',
};

function groupByTarget(plan: PlannedFile[]): Map<Target, PlannedFile[]> {
  const byTarget = new Map<Target, PlannedFile[]>();
  for (const item of plan) byTarget.set(item.target, [...(byTarget.get(item.target) ?? []), item]);
  return byTarget;
}

/** "Claude Code, Cursor (reads this directory too)": who a copy serves, and why. */
function agentNames(target: Target, env: CommandContext['env']): string {
  return target.agents
    .map((agent) => {
      const own = skillsDir(agent, target.scope, target.projectDir ?? '.', env) === target.skillsDir;
      return own ? agent.name : `${agent.name} (reads this directory too)`;
    })
    .join(', ');
}

export function showPlan(ctx: CommandContext, plan: PlannedFile[]): void {
  for (const [target, items] of groupByTarget(plan)) {
    const root = skillRoot(target.skillsDir);
    ctx.out.info(`${ctx.out.style.bold(root)}  (${agentNames(target, ctx.env)}; ${target.scope} scope)`);
    for (const item of items) {
      const relative = path.relative(root, item.path);
      const notes: Record<PlannedFile['action'], string> = {
        create: '',
        unchanged: '',
        update: '',
        overwrite: ' (your changes are replaced: --force)',
        edited: ' (edited by you: kept)',
        'keep-edited': ` (edited by you, or not written by assetgen: kept; the new version goes to ${path.basename(item.writeTo ?? '')})`,
        pending: ` (edited by you: kept; the new version is already in ${path.basename(item.path)}.new)`,
        conflict: ` (edited by you, and ${path.basename(item.path)}.new is not ours: nothing written; remove it or use --force)`,
      };
      ctx.out.info(`  ${ACTION_LABEL[item.action].padEnd(9)} ${relative}${notes[item.action]}`);
    }
  }
}

export function describeTargets(plan: PlannedFile[]) {
  return [...groupByTarget(plan).keys()].map((target) => ({
    dir: skillRoot(target.skillsDir),
    scope: target.scope,
    agents: target.agents.map((agent) => agent.id),
  }));
}

export function describePlan(plan: PlannedFile[]) {
  return plan.map((item) => ({
    path: item.path,
    action: item.action,
    writes: item.writeTo,
    ...(item.removes ? { removes: item.removes } : {}),
    agents: item.target.agents.map((agent) => agent.id),
    scope: item.target.scope,
  }));
}

export function reportKept(ctx: CommandContext, plan: PlannedFile[]): void {
  for (const item of plan) {
    if (item.action === 'keep-edited')
      ctx.out.warn(
        `${item.path} was changed by you (or is not ours): kept it; the new version is ${item.writeTo}. Use --force to replace it.`,
      );
    if (item.action === 'pending')
      ctx.out.warn(
        `${item.path} was changed by you: kept it; the new version is still waiting in ${item.path}.new. Use --force to replace it.`,
      );
    if (item.action === 'conflict')
      ctx.out.warn(
        `${item.path} was changed by you and ${item.path}.new is not ours: nothing written there. Use --force to replace ${item.path}.`,
      );
  }
}

export function reportApplied(ctx: CommandContext, plan: PlannedFile[]): void {
  const written = plan.filter((item) => item.writeTo);
  const names = [...new Set(plan.flatMap((item) => item.target.agents.map((agent) => agent.name)))].join(', ');
  if (written.length) ctx.out.info(`Wrote ${plural(written.length, 'file')} for ${names}.`);
  else {
    const added = [...new Set(plan.flatMap((item) => item.addsAgents))].map((id) => findAgent(id)?.name ?? id);
    if (added.length) ctx.out.info(`Already installed; now recorded for ${added.join(', ')} too. Nothing was written.`);
  }
  const removed = plan.filter((item) => item.removes);
  if (removed.length) ctx.out.info(`Removed ${plural(removed.length, 'obsolete .new file')}.`);
  reportKept(ctx, plan);
  for (const item of written) ctx.out.result(item.writeTo!);
}

export function describeRemovals(removals: PlannedRemoval[]) {
  return removals.map((r) => ({
    path: r.entry.path,
    action: r.action,
    ...(r.action === 'detach' ? { remainingAgents: r.remainingAgents } : {}),
  }));
}

export function reportRemoved(ctx: CommandContext, removals: PlannedRemoval[]): void {
  const removed = removals.filter((r) => r.action === 'remove').length;
  const shared = removals.filter((r) => r.action === 'detach').length;
  ctx.out.info(`Removed ${plural(removed, 'file')}.${shared ? ` Kept ${plural(shared, 'file')} other agents still use.` : ''}`);
  for (const removal of removals.filter((r) => r.action === 'keep-edited'))
    ctx.out.warn(`${removal.entry.path} was changed by you: kept it. \`assetgen skills uninstall --force\` removes it.`);
}

export function showRemovals(ctx: CommandContext, removals: PlannedRemoval[]): void {
  for (const removal of removals) {
    const note =
      removal.action === 'keep-edited'
        ? 'keep      (edited by you; --force removes it)'
        : removal.action === 'detach'
          ? `keep      (still used by ${removal.remainingAgents.join(', ')})`
          : removal.action === 'missing'
            ? 'forget    (already gone)'
            : 'remove   ';
    ctx.out.info(`  ${note} ${removal.entry.path}`);
  }
}
