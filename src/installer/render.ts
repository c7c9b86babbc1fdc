// The skill is rendered from templates/skills/assetgen: the command that runs assetgen, the version
// and the base URL are filled in. Nothing secret ever goes into a template.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../package-info.cjs';

export const SKILL_NAME = 'assetgen';
const TEMPLATE_DIR = fileURLToPath(new URL('../../templates/skills/assetgen/', import.meta.url));

export interface RenderValues {
  /** How the agent should invoke the CLI: `assetgen`, or `npx -y assetgen@<version>`. */
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

/**
 * `assetgen` when an executable of that name is on PATH, else a pinned `npx` invocation. PATH
 * entries that npm/npx add only for the duration of one command (a `node_modules/.bin`, the npx
 * cache) do not count: `npx assetgen install` finds `assetgen` there, but the agent will not later.
 */
export function invocationCommand(env: Record<string, string | undefined>, version: string): string {
  const pathVar = env.PATH ?? env.Path ?? '';
  const dirs = pathVar.split(path.delimiter).filter((dir) => dir && !isTransientBinDir(dir));
  const names = process.platform === 'win32' ? ['assetgen.cmd', 'assetgen.exe', 'assetgen.ps1', 'assetgen'] : ['assetgen'];
  for (const dir of dirs) {
    for (const name of names) {
      try {
        const file = path.join(dir, name);
        fs.accessSync(file, fs.constants.X_OK);
        if (fs.statSync(file).isFile()) return 'assetgen';
      } catch {
        // not here
      }
    }
  }
  return `npx -y assetgen@${version}`;
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
