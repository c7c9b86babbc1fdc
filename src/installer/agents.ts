// Where each coding agent reads Agent Skills: one record per agent, data only (facts from
// shared/agents.tsv). Paths are relative to the project (project scope) or to a root directory
// (user scope), so the environment overrides live in one function below.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InstallerError } from './errors.js';

/** Base directories of user-scope paths; the env var, when set, replaces the default. */
export type UserRoot = 'home' | 'xdgConfig' | 'claudeHome' | 'codexHome';

/** A directory under a user root (`path` may be '' for the root itself). */
export interface UserPath {
  root: UserRoot;
  path: string;
}

export interface AgentRecord {
  id: string;
  name: string;
  /** Skills directory relative to the project root. */
  projectDir: string;
  /** Skills directory for user scope. */
  userDir: UserPath;
  /** The directory whose existence means "this agent is installed"; null: never detected. */
  detect: UserPath | null;
  /**
   * Other skills directories the agent reads too (agents.tsv `also_reads`). When another selected
   * agent's directory is one of them, this agent uses that copy instead of getting a second one
   * it would list twice.
   */
  alsoReads: { project: string[]; user: UserPath[] };
}

const none = { project: [], user: [] };

export const CODING_AGENTS: readonly AgentRecord[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    projectDir: '.claude/skills',
    userDir: { root: 'claudeHome', path: 'skills' },
    detect: { root: 'claudeHome', path: '' },
    alsoReads: none,
  },
  {
    id: 'codex',
    name: 'OpenAI Codex',
    projectDir: '.agents/skills',
    userDir: { root: 'codexHome', path: 'skills' },
    detect: { root: 'codexHome', path: '' },
    alsoReads: { project: [], user: [{ root: 'home', path: '.agents/skills' }] },
  },
  {
    id: 'cursor',
    name: 'Cursor',
    projectDir: '.agents/skills',
    userDir: { root: 'home', path: '.cursor/skills' },
    detect: { root: 'home', path: '.cursor' },
    alsoReads: { project: ['.cursor/skills', '.claude/skills'], user: [] },
  },
  {
    id: 'github-copilot',
    name: 'GitHub Copilot',
    projectDir: '.github/skills',
    userDir: { root: 'home', path: '.copilot/skills' },
    detect: { root: 'home', path: '.copilot' },
    alsoReads: { project: ['.agents/skills', '.claude/skills'], user: [{ root: 'home', path: '.agents/skills' }] },
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    projectDir: '.gemini/skills',
    userDir: { root: 'home', path: '.gemini/skills' },
    detect: { root: 'home', path: '.gemini' },
    alsoReads: { project: ['.agents/skills'], user: [{ root: 'home', path: '.agents/skills' }] },
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    projectDir: '.opencode/skills',
    userDir: { root: 'xdgConfig', path: 'opencode/skills' },
    detect: { root: 'xdgConfig', path: 'opencode' },
    alsoReads: { project: ['.agents/skills', '.claude/skills'], user: [{ root: 'home', path: '.agents/skills' }] },
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    projectDir: '.windsurf/skills',
    userDir: { root: 'home', path: '.codeium/windsurf/skills' },
    detect: { root: 'home', path: '.codeium/windsurf' },
    alsoReads: none,
  },
  {
    id: 'goose',
    name: 'Goose',
    projectDir: '.goose/skills',
    userDir: { root: 'xdgConfig', path: 'goose/skills' },
    detect: { root: 'xdgConfig', path: 'goose' },
    alsoReads: { project: ['.agents/skills', '.claude/skills'], user: [{ root: 'xdgConfig', path: 'agents/skills' }] },
  },
  {
    id: 'amp',
    name: 'Amp',
    projectDir: '.agents/skills',
    userDir: { root: 'xdgConfig', path: 'agents/skills' },
    detect: { root: 'xdgConfig', path: 'amp' },
    alsoReads: none,
  },
  {
    id: 'cline',
    name: 'Cline',
    projectDir: '.cline/skills',
    userDir: { root: 'home', path: '.cline/skills' },
    detect: { root: 'home', path: '.cline' },
    alsoReads: { project: ['.clinerules/skills', '.claude/skills'], user: [] },
  },
  {
    id: 'roo',
    name: 'Roo Code',
    projectDir: '.roo/skills',
    userDir: { root: 'home', path: '.roo/skills' },
    detect: { root: 'home', path: '.roo' },
    alsoReads: none,
  },
  {
    id: 'kiro',
    name: 'Kiro',
    projectDir: '.kiro/skills',
    userDir: { root: 'home', path: '.kiro/skills' },
    detect: { root: 'home', path: '.kiro' },
    alsoReads: none,
  },
  {
    id: 'continue',
    name: 'Continue',
    projectDir: '.continue/skills',
    userDir: { root: 'home', path: '.continue/skills' },
    detect: { root: 'home', path: '.continue' },
    alsoReads: none,
  },
  {
    id: 'zed',
    name: 'Zed',
    projectDir: '.agents/skills',
    userDir: { root: 'home', path: '.agents/skills' },
    detect: { root: 'xdgConfig', path: 'zed' },
    alsoReads: none,
  },
  {
    id: 'universal',
    name: 'Shared .agents/skills (any agent that reads it)',
    projectDir: '.agents/skills',
    userDir: { root: 'home', path: '.agents/skills' },
    detect: null,
    alsoReads: none,
  },
];

export type Scope = 'project' | 'user';
export type Env = Record<string, string | undefined>;

export const SCOPES: readonly Scope[] = ['project', 'user'];

export function findAgent(id: string): AgentRecord | undefined {
  return CODING_AGENTS.find((agent) => agent.id === id);
}

function homeDir(env: Env): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

/** The directory a user root stands for, honouring CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME. */
export function userRoot(root: UserRoot, env: Env): string {
  const home = homeDir(env);
  switch (root) {
    case 'home':
      return path.resolve(home);
    case 'xdgConfig':
      return env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.resolve(home, '.config');
    case 'claudeHome':
      return env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.resolve(home, '.claude');
    case 'codexHome':
      return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.resolve(home, '.codex');
  }
}

/**
 * Joins a relative path (forward slashes, from the table or a template) under `root`, refusing
 * anything absolute or with `..` that would land outside it. '' means `root` itself.
 */
export function joinInside(root: string, relative: string): string {
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  if (path.isAbsolute(relative) || /^[A-Za-z]:/.test(relative) || relative.includes('\\') || parts.includes('..')) {
    throw new InstallerError(`Refusing a path outside ${root}: ${relative}`, { code: 'path_outside' });
  }
  const joined = path.resolve(root, ...parts);
  const inside = path.relative(path.resolve(root), joined);
  if (inside.startsWith('..') || path.isAbsolute(inside))
    throw new InstallerError(`Refusing a path outside ${root}: ${relative}`, { code: 'path_outside' });
  return joined;
}

export function userPath(where: UserPath, env: Env): string {
  return joinInside(userRoot(where.root, env), where.path);
}

/** The skills directory of an agent for a scope (absolute). */
export function skillsDir(agent: AgentRecord, scope: Scope, projectDir: string, env: Env): string {
  return scope === 'project' ? joinInside(path.resolve(projectDir), agent.projectDir) : userPath(agent.userDir, env);
}

/** The other skills directories an agent reads in a scope (absolute). */
export function alsoReadDirs(agent: AgentRecord, scope: Scope, projectDir: string, env: Env): string[] {
  return scope === 'project'
    ? agent.alsoReads.project.map((dir) => joinInside(path.resolve(projectDir), dir))
    : agent.alsoReads.user.map((dir) => userPath(dir, env));
}

/** Agents whose configuration directory exists on this machine. */
export function detectAgents(env: Env): AgentRecord[] {
  return CODING_AGENTS.filter((agent) => agent.detect !== null && fs.existsSync(userPath(agent.detect, env)));
}
