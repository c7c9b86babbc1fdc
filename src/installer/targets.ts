// Where the copies go: one target per distinct skills directory, shared by the agents that read it.
// Also the targets the manifest already records (for update, list and reinstalls).
import fs from 'node:fs';
import path from 'node:path';
import { CODING_AGENTS, alsoReadDirs, joinInside, skillsDir, type AgentRecord, type Env, type Scope } from './agents.js';
import { canonical } from './files.js';
import type { Manifest } from './manifest.js';
import { SKILL_NAME } from './render.js';

export interface Target {
  /** The skills directory the copy goes into (the skill itself is `<skillsDir>/assetgen`). */
  skillsDir: string;
  /** Every agent this copy serves. */
  agents: AgentRecord[];
  scope: Scope;
  /** Project root, for project scope. */
  projectDir?: string;
}

/** Path of the skill folder inside a skills directory. */
export const skillRoot = (dir: string): string => joinInside(dir, SKILL_NAME);

/**
 * One target per distinct directory: agents that share a directory share one copy. An agent that
 * also reads a directory another selected agent gets (or one where the skill is already installed,
 * `installedDirs`) is served by that copy rather than getting a second one it would list twice.
 * Claude Code reads nothing else, so it always gets `.claude/skills`.
 */
export function resolveTargets(agents: AgentRecord[], scope: Scope, projectDir: string, env: Env, installedDirs: string[] = []): Target[] {
  const unique = [...new Set(agents)];
  const primary = new Map(unique.map((agent) => [agent, skillsDir(agent, scope, projectDir, env)]));
  const byKey = new Map<string, Target>();
  const targetFor = (dir: string): Target => {
    const key = canonical(dir);
    let target = byKey.get(key);
    if (!target) {
      target = { skillsDir: dir, agents: [], scope, ...(scope === 'project' ? { projectDir: path.resolve(projectDir) } : {}) };
      byKey.set(key, target);
    }
    return target;
  };
  const chosen = new Set(installedDirs.map(canonical));
  const others = (agent: AgentRecord): Set<string> =>
    new Set([...unique.filter((other) => other !== agent).map((other) => canonical(primary.get(other)!)), ...chosen]);
  // Agents that nothing else can serve anchor their own directory first.
  let pending: AgentRecord[] = [];
  for (const agent of unique) {
    const reachable = alsoReadDirs(agent, scope, projectDir, env).map(canonical);
    if (reachable.some((dir) => others(agent).has(dir))) pending.push(agent);
    else chosen.add(canonical(primary.get(agent)!));
  }
  const assigned = new Map<AgentRecord, string>();
  while (pending.length) {
    const next: AgentRecord[] = [];
    for (const agent of pending) {
      const own = primary.get(agent)!;
      const shared = alsoReadDirs(agent, scope, projectDir, env).find((dir) => chosen.has(canonical(dir)));
      if (chosen.has(canonical(own))) assigned.set(agent, own);
      else if (shared) assigned.set(agent, shared);
      else next.push(agent);
    }
    // No progress: the first one left takes its own directory, and the rest may share it.
    if (next.length === pending.length) {
      chosen.add(canonical(primary.get(next[0])!));
    }
    pending = next;
  }
  for (const agent of unique) {
    const dir = assigned.get(agent) ?? primary.get(agent)!;
    targetFor(dir).agents.push(agent);
  }
  // Keep every target's own spelling of its directory when one of its agents has it as primary.
  for (const target of byKey.values()) {
    const own = target.agents.map((agent) => primary.get(agent)!).find((dir) => canonical(dir) === canonical(target.skillsDir));
    if (own) target.skillsDir = own;
  }
  return [...byKey.values()];
}

/** Skills directories (of a scope, and project) where the manifest says the skill is installed. */
export function installedDirs(manifest: Manifest, scope: Scope, projectDir: string): string[] {
  const project = path.resolve(projectDir);
  const dirs = manifest.files
    .filter((entry) => !entry.pending && entry.scope === scope && (scope === 'user' || entry.projectDir === project))
    .filter((entry) => fs.existsSync(entry.path))
    .map((entry) => entry.skillsDir);
  return [...new Set(dirs)];
}

/** The distinct install targets recorded in the manifest (for update and list). */
export function installedTargets(manifest: Manifest): Target[] {
  const byDir = new Map<string, Target>();
  for (const entry of manifest.files) {
    if (entry.pending) continue;
    const target = byDir.get(entry.skillsDir) ?? {
      skillsDir: entry.skillsDir,
      agents: [],
      scope: entry.scope,
      ...(entry.projectDir ? { projectDir: entry.projectDir } : {}),
    };
    for (const id of entry.agents) {
      const agent = CODING_AGENTS.find((a) => a.id === id);
      if (agent && !target.agents.includes(agent)) target.agents.push(agent);
    }
    byDir.set(entry.skillsDir, target);
  }
  return [...byDir.values()];
}
