// Where each coding agent reads Agent Skills: one record per agent, data only (facts from
// shared/agents.tsv). Paths are relative to the project (project scope) or to a root directory
// (user scope), so the environment overrides live in one function below.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Base directories of user-scope paths; the env var, when set, replaces the default. */
export type UserRoot = 'home' | 'xdgConfig' | 'claudeHome' | 'codexHome';

export interface AgentRecord {
  id: string;
  name: string;
  /** Skills directory relative to the project root. */
  projectDir: string;
  /** Skills directory for user scope: a root and a path under it. */
  userDir: { root: UserRoot; path: string };
  /** The directory whose existence means "this agent is installed"; null: never detected. */
  detect: { root: UserRoot; path: string } | null;
}

export const AGENTS: readonly AgentRecord[] = [
  { id: 'claude-code', name: 'Claude Code', projectDir: '.claude/skills', userDir: { root: 'claudeHome', path: 'skills' }, detect: { root: 'claudeHome', path: '' } },
  { id: 'codex', name: 'OpenAI Codex', projectDir: '.agents/skills', userDir: { root: 'codexHome', path: 'skills' }, detect: { root: 'codexHome', path: '' } },
  { id: 'cursor', name: 'Cursor', projectDir: '.agents/skills', userDir: { root: 'home', path: '.cursor/skills' }, detect: { root: 'home', path: '.cursor' } },
  { id: 'github-copilot', name: 'GitHub Copilot', projectDir: '.github/skills', userDir: { root: 'home', path: '.copilot/skills' }, detect: { root: 'home', path: '.copilot' } },
  { id: 'gemini-cli', name: 'Gemini CLI', projectDir: '.gemini/skills', userDir: { root: 'home', path: '.gemini/skills' }, detect: { root: 'home', path: '.gemini' } },
  { id: 'opencode', name: 'OpenCode', projectDir: '.opencode/skills', userDir: { root: 'xdgConfig', path: 'opencode/skills' }, detect: { root: 'xdgConfig', path: 'opencode' } },
  { id: 'windsurf', name: 'Windsurf', projectDir: '.windsurf/skills', userDir: { root: 'home', path: '.codeium/windsurf/skills' }, detect: { root: 'home', path: '.codeium/windsurf' } },
  { id: 'goose', name: 'Goose', projectDir: '.goose/skills', userDir: { root: 'xdgConfig', path: 'goose/skills' }, detect: { root: 'xdgConfig', path: 'goose' } },
  { id: 'amp', name: 'Amp', projectDir: '.agents/skills', userDir: { root: 'xdgConfig', path: 'agents/skills' }, detect: { root: 'xdgConfig', path: 'amp' } },
  { id: 'cline', name: 'Cline', projectDir: '.cline/skills', userDir: { root: 'home', path: '.cline/skills' }, detect: { root: 'home', path: '.cline' } },
  { id: 'roo', name: 'Roo Code', projectDir: '.roo/skills', userDir: { root: 'home', path: '.roo/skills' }, detect: { root: 'home', path: '.roo' } },
  { id: 'kiro', name: 'Kiro', projectDir: '.kiro/skills', userDir: { root: 'home', path: '.kiro/skills' }, detect: { root: 'home', path: '.kiro' } },
  { id: 'continue', name: 'Continue', projectDir: '.continue/skills', userDir: { root: 'home', path: '.continue/skills' }, detect: { root: 'home', path: '.continue' } },
  { id: 'zed', name: 'Zed', projectDir: '.agents/skills', userDir: { root: 'home', path: '.agents/skills' }, detect: { root: 'xdgConfig', path: 'zed' } },
  { id: 'universal', name: 'Shared .agents/skills (any agent that reads it)', projectDir: '.agents/skills', userDir: { root: 'home', path: '.agents/skills' }, detect: null },
];

export type Scope = 'project' | 'user';
export type Env = Record<string, string | undefined>;

export function findAgent(id: string): AgentRecord | undefined {
  return AGENTS.find((agent) => agent.id === id);
}

function homeDir(env: Env): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

/** The directory a user root stands for, honouring CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME. */
export function userRoot(root: UserRoot, env: Env): string {
  const home = homeDir(env);
  switch (root) {
    case 'home':
      return home;
    case 'xdgConfig':
      return env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(home, '.config');
    case 'claudeHome':
      return env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(home, '.claude');
    case 'codexHome':
      return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex');
  }
}

/** The skills directory of an agent for a scope (absolute). */
export function skillsDir(agent: AgentRecord, scope: Scope, projectDir: string, env: Env): string {
  return scope === 'project' ? path.resolve(projectDir, agent.projectDir) : path.join(userRoot(agent.userDir.root, env), agent.userDir.path);
}

/** Agents whose configuration directory exists on this machine. */
export function detectAgents(env: Env): AgentRecord[] {
  return AGENTS.filter((agent) => agent.detect !== null && fs.existsSync(path.join(userRoot(agent.detect.root, env), agent.detect.path)));
}
