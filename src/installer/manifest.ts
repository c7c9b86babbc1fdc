// The install manifest: every file the installer wrote (path, sha256, version, agents, scope) and
// every directory it created. Uninstall and update act on this list and nothing else. It lives in
// the CLI's config directory (beside credentials.json) because one manifest covers user scope and
// every project the skill was installed into.
import fs from 'node:fs';
import path from 'node:path';
import { configDir, type Env } from '../config/paths.js';
import type { Scope } from './agents.js';
import { InstallerError } from './errors.js';
import { writeFileAtomicSync } from '../files/atomic.js';
import type { WrittenEntry } from './mcp-config.js';
import { ownFileFailure, readRegularFileSync } from '../files/confine.js';
import { jsonSyntaxProblem } from '../files/json-problem.js';

export interface ManifestFile {
  /** Absolute path of the file. */
  path: string;
  /** sha256 of the content assetgen wrote (a different hash on disk means the user edited it). */
  sha256: string;
  /** The assetgen version that wrote it. */
  version: string;
  /** Agents this copy serves; several agents sharing a directory share one copy. */
  agents: string[];
  scope: Scope;
  /** The skills directory it was installed into (`<skillsDir>/assetgen/...`). */
  skillsDir: string;
  /** Project root, for project scope. */
  projectDir?: string;
  /** True for a `*.new` file written beside a file the user edited. */
  pending?: boolean;
}

/** An `assetgen` MCP server entry the installer added to an agent's MCP configuration file. */
export interface ManifestMcpEntry extends WrittenEntry {
  /** Absolute path of the configuration file. */
  path: string;
  agents: string[];
  scope: Scope;
  projectDir?: string;
  version: string;
}

export interface Manifest {
  version: 1;
  files: ManifestFile[];
  /** Directories the installer created, so uninstall can remove them once empty. */
  createdDirs: string[];
  /** MCP server entries (`install --mcp`); absent in manifests written before it existed. */
  mcp?: ManifestMcpEntry[];
}

export const MANIFEST_FILE = 'skills-manifest.json';

export function manifestPath(env: Env): string {
  return path.join(configDir(env), MANIFEST_FILE);
}

export function emptyManifest(): Manifest {
  return { version: 1, files: [], createdDirs: [] };
}

const REPAIR_HINT = 'Fix or remove it; without it, assetgen no longer knows which skill files it wrote.';

export function readManifest(env: Env): Manifest {
  const file = manifestPath(env);
  let text: string;
  try {
    text = readRegularFileSync(file, file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyManifest();
    const { message, hint } = ownFileFailure('read', 'the install manifest', file, error, {
      moved: 'the next `assetgen skills install` writes a new one.',
      otherwise: `Check its permissions. ${REPAIR_HINT}`,
    });
    throw new InstallerError(message, { code: 'damaged_manifest', hint, cause: error });
  }
  // A damaged manifest must stop us: guessing would mean deleting or overwriting the wrong files.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InstallerError(`The install manifest ${file} is not valid JSON (${jsonSyntaxProblem(error, text)}).`, {
      code: 'damaged_manifest',
      hint: REPAIR_HINT,
    });
  }
  const problem = manifestProblem(parsed);
  if (problem) throw new InstallerError(`The install manifest ${file} ${problem}.`, { code: 'damaged_manifest', hint: REPAIR_HINT });
  const manifest = parsed as Manifest;
  return {
    version: 1,
    files: manifest.files,
    createdDirs: manifest.createdDirs,
    ...(Array.isArray(manifest.mcp) && manifest.mcp.length ? { mcp: manifest.mcp } : {}),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isStringList = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');
const isScope = (value: unknown): boolean => value === 'user' || value === 'project';

/** What is wrong with a parsed manifest (as the end of a sentence), or undefined when it is whole. */
function manifestProblem(parsed: unknown): string | undefined {
  if (!isRecord(parsed) || parsed.version !== 1 || !Array.isArray(parsed.files) || !Array.isArray(parsed.createdDirs))
    return 'has an unknown format (expected {"version": 1, "files": [...], "createdDirs": [...]})';
  const badFile = parsed.files.findIndex(
    (entry) =>
      !isRecord(entry) ||
      !['path', 'sha256', 'version', 'skillsDir'].every((field) => typeof entry[field] === 'string') ||
      !isStringList(entry.agents) ||
      !isScope(entry.scope),
  );
  if (badFile >= 0) return `has a damaged record: files[${badFile}]`;
  if (!isStringList(parsed.createdDirs)) return 'has a damaged record in createdDirs';
  if (parsed.mcp !== undefined) {
    if (!Array.isArray(parsed.mcp)) return 'has a damaged "mcp" (not a list)';
    const badEntry = parsed.mcp.findIndex(
      (entry) =>
        !isRecord(entry) ||
        !['path', 'format', 'value', 'inserted', 'version'].every((field) => typeof entry[field] === 'string') ||
        !isStringList(entry.agents) ||
        !isScope(entry.scope),
    );
    if (badEntry >= 0) return `has a damaged record: mcp[${badEntry}]`;
  }
  return undefined;
}

export function writeManifest(env: Env, manifest: Manifest): void {
  const file = manifestPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}
