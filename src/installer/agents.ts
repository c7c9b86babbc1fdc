// Where each coding agent reads Agent Skills: one record per agent, data only. Each record names
// where its directories were looked up (`skillsSource`: the agent's own documentation, or the agent
// table of vercel-labs/skills, the most used installer, where the agent's docs do not say); the same
// facts, for people, are docs/skills.md's table. Paths are relative to the project (project scope)
// or to a root directory (user scope), so the environment overrides live in one function below.
import fs from 'node:fs';
import path from 'node:path';
import { homeDir, type Env } from '../config/paths.js';
import { InstallerError } from './errors.js';

/** Base directories of user-scope paths; the env var, when set, replaces the default. */
export type UserRoot = 'home' | 'xdgConfig' | 'claudeHome' | 'codexHome';

/** A directory under a user root (`path` may be '' for the root itself). */
export interface UserPath {
  root: UserRoot;
  path: string;
}

/**
 * How an agent's MCP configuration file spells a stdio server (docs/mcp.md, "Registration"):
 * - mcpServers: `{"mcpServers": {"assetgen": {"command", "args"}}}` (Cursor, Gemini CLI, Kiro, …);
 * - mcpServersStdio: the same with `"type": "stdio"` (Claude Code);
 * - vscodeServers: `{"servers": {"assetgen": {"type": "stdio", "command", "args"}}}` (VS Code);
 * - opencode: `{"mcp": {"assetgen": {"type": "local", "command": [...], "enabled": true}}}`;
 * - codexToml: a `[mcp_servers.assetgen]` table with `command` and `args` (Codex).
 */
export type McpFormat = 'mcpServers' | 'mcpServersStdio' | 'vscodeServers' | 'opencode' | 'codexToml';

/** Where an agent reads MCP servers: a file per scope (absent: the installer cannot write that scope). */
export interface McpPlace {
  format: McpFormat;
  /** Relative to the project root. */
  project?: string;
  user?: UserPath;
  /** Where the format was looked up. */
  source: string;
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
  /** Where the skills directories above were looked up (a public page). */
  skillsSource: string;
  /**
   * Other skills directories the agent reads too. When another selected
   * agent's directory is one of them, this agent uses that copy instead of getting a second one
   * it would list twice.
   */
  alsoReads: { project: string[]; user: UserPath[] };
  /** Its MCP configuration, for `assetgen install --mcp`; null: not written by the installer (add by hand). */
  mcp: McpPlace | null;
}

const none = { project: [], user: [] };

export const CODING_AGENTS: readonly AgentRecord[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    projectDir: '.claude/skills',
    userDir: { root: 'claudeHome', path: 'skills' },
    detect: { root: 'claudeHome', path: '' },
    skillsSource: 'https://docs.claude.com/en/docs/claude-code/skills',
    alsoReads: none,
    mcp: {
      format: 'mcpServersStdio',
      project: '.mcp.json',
      user: { root: 'home', path: '.claude.json' },
      source: 'https://www.mintlify.com/jackdog668/claude-code/integrations/mcp-servers',
    },
  },
  {
    id: 'codex',
    name: 'OpenAI Codex',
    projectDir: '.agents/skills',
    userDir: { root: 'codexHome', path: 'skills' },
    detect: { root: 'codexHome', path: '' },
    skillsSource: 'https://developers.openai.com/codex/skills',
    alsoReads: { project: [], user: [{ root: 'home', path: '.agents/skills' }] },
    mcp: {
      format: 'codexToml',
      project: '.codex/config.toml',
      user: { root: 'codexHome', path: 'config.toml' },
      source: 'https://www.mcpbundles.com/guides/codex',
    },
  },
  {
    id: 'cursor',
    name: 'Cursor',
    projectDir: '.agents/skills',
    userDir: { root: 'home', path: '.cursor/skills' },
    detect: { root: 'home', path: '.cursor' },
    skillsSource: 'https://cursor.com/docs/context/skills',
    alsoReads: { project: ['.cursor/skills', '.claude/skills'], user: [] },
    mcp: {
      format: 'mcpServers',
      project: '.cursor/mcp.json',
      user: { root: 'home', path: '.cursor/mcp.json' },
      source: 'https://www.developersdigest.tech/mcp-servers/clients/cursor',
    },
  },
  {
    id: 'github-copilot',
    name: 'GitHub Copilot',
    projectDir: '.github/skills',
    userDir: { root: 'home', path: '.copilot/skills' },
    detect: { root: 'home', path: '.copilot' },
    skillsSource: 'https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/create-skills',
    alsoReads: { project: ['.agents/skills', '.claude/skills'], user: [{ root: 'home', path: '.agents/skills' }] },
    mcp: {
      format: 'vscodeServers',
      project: '.vscode/mcp.json',
      source: 'https://code.visualstudio.com/docs/copilot/reference/mcp-configuration',
    },
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    projectDir: '.gemini/skills',
    userDir: { root: 'home', path: '.gemini/skills' },
    detect: { root: 'home', path: '.gemini' },
    skillsSource: 'https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/skills.md',
    alsoReads: { project: ['.agents/skills'], user: [{ root: 'home', path: '.agents/skills' }] },
    mcp: {
      format: 'mcpServers',
      project: '.gemini/settings.json',
      user: { root: 'home', path: '.gemini/settings.json' },
      source: 'https://www.geminicli.com/docs/tools/mcp-server',
    },
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    projectDir: '.opencode/skills',
    userDir: { root: 'xdgConfig', path: 'opencode/skills' },
    detect: { root: 'xdgConfig', path: 'opencode' },
    skillsSource: 'https://opencode.ai/docs/skills',
    alsoReads: { project: ['.agents/skills', '.claude/skills'], user: [{ root: 'home', path: '.agents/skills' }] },
    mcp: {
      format: 'opencode',
      project: 'opencode.json',
      user: { root: 'xdgConfig', path: 'opencode/opencode.json' },
      source: 'https://opencode.ai/docs/zh-cn/mcp-servers',
    },
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    projectDir: '.windsurf/skills',
    userDir: { root: 'home', path: '.codeium/windsurf/skills' },
    detect: { root: 'home', path: '.codeium/windsurf' },
    skillsSource: 'https://docs.windsurf.com/windsurf/cascade/skills',
    alsoReads: none,
    mcp: {
      format: 'mcpServers',
      user: { root: 'home', path: '.codeium/windsurf/mcp_config.json' },
      source: 'https://raw.githubusercontent.com/confluentinc/mcp-confluent/master/docs/configuring-windsurf.md',
    },
  },
  {
    id: 'goose',
    name: 'Goose',
    projectDir: '.goose/skills',
    userDir: { root: 'xdgConfig', path: 'goose/skills' },
    detect: { root: 'xdgConfig', path: 'goose' },
    skillsSource: 'https://block.github.io/goose/docs/guides/context-engineering/using-skills',
    alsoReads: { project: ['.agents/skills', '.claude/skills'], user: [{ root: 'xdgConfig', path: 'agents/skills' }] },
    mcp: null,
  },
  {
    id: 'amp',
    name: 'Amp',
    projectDir: '.agents/skills',
    userDir: { root: 'xdgConfig', path: 'agents/skills' },
    detect: { root: 'xdgConfig', path: 'amp' },
    skillsSource: 'https://github.com/vercel-labs/skills/blob/main/src/agents.ts',
    alsoReads: none,
    mcp: null,
  },
  {
    id: 'cline',
    name: 'Cline',
    projectDir: '.cline/skills',
    userDir: { root: 'home', path: '.cline/skills' },
    detect: { root: 'home', path: '.cline' },
    skillsSource: 'https://github.com/cline/cline/blob/main/docs/customization/skills.mdx',
    alsoReads: { project: ['.clinerules/skills', '.claude/skills'], user: [] },
    mcp: null,
  },
  {
    id: 'roo',
    name: 'Roo Code',
    projectDir: '.roo/skills',
    userDir: { root: 'home', path: '.roo/skills' },
    detect: { root: 'home', path: '.roo' },
    skillsSource: 'https://docs.roocode.com/features/skills',
    alsoReads: none,
    mcp: { format: 'mcpServers', project: '.roo/mcp.json', source: 'https://docs.roocode.com/features/mcp/using-mcp-in-roo' },
  },
  {
    id: 'kiro',
    name: 'Kiro',
    projectDir: '.kiro/skills',
    userDir: { root: 'home', path: '.kiro/skills' },
    detect: { root: 'home', path: '.kiro' },
    skillsSource: 'https://github.com/vercel-labs/skills/blob/main/src/agents.ts',
    alsoReads: none,
    mcp: {
      format: 'mcpServers',
      project: '.kiro/settings/mcp.json',
      user: { root: 'home', path: '.kiro/settings/mcp.json' },
      source: 'https://kiro.dev/docs/mcp/configuration',
    },
  },
  {
    id: 'continue',
    name: 'Continue',
    projectDir: '.continue/skills',
    userDir: { root: 'home', path: '.continue/skills' },
    detect: { root: 'home', path: '.continue' },
    skillsSource: 'https://github.com/vercel-labs/skills/blob/main/src/agents.ts',
    alsoReads: none,
    mcp: null,
  },
  {
    id: 'zed',
    name: 'Zed',
    projectDir: '.agents/skills',
    userDir: { root: 'home', path: '.agents/skills' },
    detect: { root: 'xdgConfig', path: 'zed' },
    skillsSource: 'https://github.com/vercel-labs/skills/blob/main/src/agents.ts',
    alsoReads: none,
    mcp: null,
  },
  {
    id: 'universal',
    name: 'Shared .agents/skills (any agent that reads it)',
    projectDir: '.agents/skills',
    userDir: { root: 'home', path: '.agents/skills' },
    detect: null,
    skillsSource: 'https://agentskills.io',
    alsoReads: none,
    mcp: null,
  },
];

export type Scope = 'project' | 'user';
export type { Env };

export const SCOPES: readonly Scope[] = ['project', 'user'];

export function findAgent(id: string): AgentRecord | undefined {
  return CODING_AGENTS.find((agent) => agent.id === id);
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
