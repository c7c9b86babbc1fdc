// The flags the skills commands share, checked before anything is read or written.
import fs from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { CODING_AGENTS, findAgent, type AgentRecord, type Scope } from '../../installer/agents.js';

export const knownAgents = (): string => CODING_AGENTS.map((agent) => agent.id).join(', ');

export function parseScope(scope: string | undefined): Scope | undefined {
  if (scope === undefined) return undefined;
  if (scope !== 'project' && scope !== 'user') throw new UsageError(`Invalid --scope "${scope}": use project or user.`);
  return scope;
}

export function agentsByIds(ids: string[]): AgentRecord[] {
  return ids.map((id) => {
    const agent = findAgent(id);
    if (!agent) throw new UsageError(`Unknown agent "${id}".`, `Known agents: ${knownAgents()}.`);
    return agent;
  });
}

/** The project root for project scope; it must exist (a typo must not create a new tree). */
export function projectRoot(ctx: CommandContext, dir: string | undefined): string {
  const root = path.resolve(ctx.cwd, dir ?? '.');
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new UsageError(`--project-dir ${root} is not a directory.`);
  return root;
}
