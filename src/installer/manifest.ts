// The install manifest: every file the installer wrote (path, sha256, version, agents, scope) and
// every directory it created. Uninstall and update act on this list and nothing else.
import fs from 'node:fs';
import path from 'node:path';
import { configDir, type Env } from '../config/paths.js';
import type { Scope } from './agents.js';

export interface ManifestFile {
  path: string;
  sha256: string;
  version: string;
  agents: string[];
  scope: Scope;
  /** The skills directory it was installed into (`<dir>/assetgen/...`). */
  skillsDir: string;
  /** True for a `*.new` file written beside a file the user edited. */
  pending?: boolean;
}

export interface Manifest {
  version: 1;
  files: ManifestFile[];
  /** Directories the installer created, so uninstall can remove them once empty. */
  createdDirs: string[];
}

export function manifestPath(env: Env): string {
  return path.join(configDir(env), 'skills-manifest.json');
}

export function readManifest(env: Env): Manifest {
  try {
    const parsed = JSON.parse(fs.readFileSync(manifestPath(env), 'utf8')) as Manifest;
    if (parsed.version === 1 && Array.isArray(parsed.files) && Array.isArray(parsed.createdDirs)) return parsed;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`The install manifest ${manifestPath(env)} is unreadable: ${(error as Error).message}`);
  }
  return { version: 1, files: [], createdDirs: [] };
}

export function writeManifest(env: Env, manifest: Manifest): void {
  const file = manifestPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Temp file in the same directory, then rename: a reader never sees half a file. */
export function writeFileAtomic(file: string, content: string): void {
  const temp = `${file}.tmp-${process.pid}-${Date.now()}`;
  fs.writeFileSync(temp, content, { mode: 0o644 });
  fs.renameSync(temp, file);
}
