// The skill is rendered from templates/skills/assetgen: the command that runs assetgen, the version
// and the base URL are filled in. Nothing secret ever goes into a template.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../package-info.cjs';
import { isWindows } from '../platform.js';

export const SKILL_NAME = 'assetgen';
const TEMPLATE_DIR = fileURLToPath(new URL('../../templates/skills/assetgen/', import.meta.url));

export interface RenderValues {
  /** How the agent should invoke the CLI: `assetgen`, or this copy by its absolute path (shellCommand). */
  command: string;
  version: string;
  /** The configured service, if any (credentials and query strings are stripped). */
  baseUrl?: string;
}

export interface RenderedFile {
  /** Path inside the skill folder, with forward slashes. */
  relative: string;
  content: string;
  sha256: string;
}

export const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

/** Template files, relative to the skill folder; nothing may point outside it. */
function templateFiles(dir = TEMPLATE_DIR, prefix = ''): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...templateFiles(path.join(dir, entry.name), relative));
    else if (entry.isFile()) files.push(relative);
  }
  return files.sort();
}

/** A base URL safe to write into a project file: no user, password, query or fragment. */
export function publicBaseUrl(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.href.replace(/\/$/, '');
  } catch {
    return undefined;
  }
}

export function renderSkill(values: RenderValues): RenderedFile[] {
  const baseUrl = publicBaseUrl(values.baseUrl);
  const serviceNote = baseUrl
    ? `It is set up for the service at ${baseUrl}.`
    : `It talks to the service configured with \`${values.command} auth login\` (or the \`ASSETGEN_BASE_URL\` environment variable).`;
  const replacements: Record<string, string> = {
    command: values.command,
    version: values.version,
    serviceNote,
    loginCommand: `${values.command} auth login --base-url ${baseUrl ?? '<service URL>'}`,
  };
  return templateFiles().map((relative) => {
    const text = fs.readFileSync(path.join(TEMPLATE_DIR, ...relative.split('/')), 'utf8');
    // An unknown placeholder is a bug in a template: fail loudly rather than ship `{{typo}}`.
    const content = text.replace(/\{\{(\w+)\}\}/g, (match, key: string) => {
      const value = replacements[key];
      if (value === undefined) throw new Error(`Unknown placeholder ${match} in templates/skills/assetgen/${relative}`);
      return value;
    });
    return { relative, content, sha256: sha256(content) };
  });
}

/** This very copy of assetgen: the script its `bin` names, beside dist/ (as built, and as installed). */
export const OWN_SCRIPT = fileURLToPath(new URL('../../bin/assetgen.js', import.meta.url));

/**
 * How an agent (through a shell) and an MCP client (spawning, no shell) start assetgen later, from
 * here. By name when an `assetgen` executable is on PATH for good; else this copy, as
 * `<node> <its bin/assetgen.js>` by absolute paths (a clone, a project's local install run through
 * `npx --no-install`). Never an `npx` that may download: the name is not published yet, and what
 * someone registers under it would run next to the API key. PATH entries that npm/npx add only for
 * one command (a `node_modules/.bin`, the npx cache) do not count: the agent will not have them.
 */
export interface Invocation {
  onPath: boolean;
  /** The node binary and the script, when not on PATH. */
  node: string;
  script: string;
}

export function resolveInvocation(env: Record<string, string | undefined>, script: string = OWN_SCRIPT): Invocation {
  return { onPath: assetgenOnPath(env), node: process.execPath, script };
}

/** True when this copy runs from npx's cache, which `npm cache clean` (or npx itself) may remove. */
export const isTransientCopy = (invocation: Invocation): boolean => !invocation.onPath && isTransientBinDir(invocation.script);

/** The command line's first words for a skill: `assetgen`, or `'<node>' '<script>'`. */
export function shellCommand(invocation: Invocation): string {
  return invocation.onPath ? 'assetgen' : [invocation.node, invocation.script].map(shellQuote).join(' ');
}

/**
 * What an MCP client spawns for `assetgen mcp`. MCP clients start servers without a shell, and on
 * Windows npm's global `assetgen` is a batch file (assetgen.cmd) that only a shell runs, so the
 * entry is `cmd /c assetgen mcp` there: the form Claude Code's own diagnostics ask for ("Windows
 * requires 'cmd /c' wrapper") and the MCP servers' READMEs give (modelcontextprotocol/servers#3460,
 * anthropics/claude-code#9594). Chosen over an absolute node.exe path for a global install because
 * it survives Node upgrades and version managers (nvm-windows, fnm, volta move node.exe) and stays
 * the same entry after `npm update -g`. Without assetgen on PATH, the absolute node path and script
 * (an .exe, spawned as is on every system).
 */
export function mcpLaunch(invocation: Invocation): { command: string; args: string[] } {
  if (!invocation.onPath) return { command: invocation.node, args: [invocation.script, 'mcp'] };
  return isWindows() ? { command: 'cmd', args: ['/c', 'assetgen', 'mcp'] } : { command: 'assetgen', args: ['mcp'] };
}

/**
 * A word as a shell reads it: as is when plain, else quoted: single quotes on POSIX, double quotes
 * on Windows (bash, as Git Bash, and cmd keep a Windows path's backslashes inside them).
 */
function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return isWindows() ? `"${word}"` : `'${word.replace(/'/g, `'\\''`)}'`;
}

function assetgenOnPath(env: Record<string, string | undefined>): boolean {
  const pathVar = env.PATH ?? env.Path ?? '';
  const dirs = pathVar.split(path.delimiter).filter((dir) => dir && !isTransientBinDir(dir));
  const names = isWindows() ? ['assetgen.cmd', 'assetgen.exe', 'assetgen.ps1', 'assetgen'] : ['assetgen'];
  for (const dir of dirs) {
    for (const name of names) {
      try {
        const file = path.join(dir, name);
        fs.accessSync(file, fs.constants.X_OK);
        if (fs.statSync(file).isFile()) return true;
      } catch {
        // not here
      }
    }
  }
  return false;
}

function isTransientBinDir(dir: string): boolean {
  const parts = path.normalize(dir).split(/[\\/]+/);
  return parts.includes('_npx') || parts.some((part, index) => part === 'node_modules' && parts[index + 1] === '.bin');
}

/** The values of the skill shipped in skills/assetgen: the default rendering. */
export function shippedValues(): RenderValues {
  return { command: 'assetgen', version: packageVersion() };
}

export const SHIPPED_SKILL_DIR = fileURLToPath(new URL('../../skills/assetgen/', import.meta.url));

/** Regenerates skills/assetgen from the templates (`npm run render-skill`). */
export function writeShippedSkill(): void {
  fs.rmSync(SHIPPED_SKILL_DIR, { recursive: true, force: true });
  for (const file of renderSkill(shippedValues())) {
    const target = path.join(SHIPPED_SKILL_DIR, ...file.relative.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.content);
  }
}
