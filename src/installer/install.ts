// Install, update and uninstall as plan → apply: the plan lists every file and what will happen
// to it, so a dry run prints exactly what a real run does.
import fs from 'node:fs';
import path from 'node:path';
import { AGENTS, skillsDir, type AgentRecord, type Env, type Scope } from './agents.js';
import { readManifest, writeFileAtomic, writeManifest, type Manifest, type ManifestFile } from './manifest.js';
import { sha256, SKILL_NAME, type RenderedFile } from './render.js';

export interface Target {
  /** The agents' shared skills directory. */
  skillsDir: string;
  agents: AgentRecord[];
  scope: Scope;
}

/**
 * - create: new file;  unchanged: already identical;  update: ours, unedited, new content;
 * - edited: the user changed our file and we have nothing newer: leave it alone;
 * - keep-edited: the user changed it (or it is not ours) and we have a new version: keep theirs,
 *   write ours as `<file>.new` beside it;
 * - overwrite: --force over a file the user changed or that is not ours.
 */
export type FileAction = 'create' | 'unchanged' | 'update' | 'edited' | 'keep-edited' | 'overwrite';

export interface PlannedFile {
  path: string;
  /** Where the content goes: `path`, or `path.new` for keep-edited. */
  writeTo: string | null;
  action: FileAction;
  content: string;
  sha256: string;
  target: Target;
}

/** One target per distinct directory: agents that share a directory share one copy. */
export function resolveTargets(agents: AgentRecord[], scope: Scope, projectDir: string, env: Env): Target[] {
  const byDir = new Map<string, Target>();
  for (const agent of agents) {
    const dir = skillsDir(agent, scope, projectDir, env);
    const target = byDir.get(dir) ?? { skillsDir: dir, agents: [], scope };
    if (!target.agents.includes(agent)) target.agents.push(agent);
    byDir.set(dir, target);
  }
  return [...byDir.values()];
}

/** Joins a template path under the skill folder, refusing anything that would land outside it. */
export function safeJoin(root: string, relative: string): string {
  if (path.isAbsolute(relative) || /^[A-Za-z]:/.test(relative)) throw new Error(`Refusing to write outside ${root}: ${relative}`);
  const file = path.resolve(root, ...relative.split('/'));
  const inside = path.relative(root, file);
  if (!inside || inside.startsWith('..') || path.isAbsolute(inside)) throw new Error(`Refusing to write outside ${root}: ${relative}`);
  return file;
}

export function planInstall(targets: Target[], files: RenderedFile[], manifest: Manifest, force: boolean): PlannedFile[] {
  const plan: PlannedFile[] = [];
  for (const target of targets) {
    const skillRoot = path.join(target.skillsDir, SKILL_NAME);
    for (const file of files) {
      const destination = safeJoin(skillRoot, file.relative);
      const recorded = manifest.files.find((entry) => entry.path === destination && !entry.pending);
      let action: FileAction;
      if (!fs.existsSync(destination)) action = 'create';
      else {
        const onDisk = sha256(fs.readFileSync(destination));
        if (onDisk === file.sha256) action = 'unchanged';
        else if (recorded && recorded.sha256 === onDisk) action = 'update';
        else if (force) action = 'overwrite';
        else action = recorded && recorded.sha256 === file.sha256 ? 'edited' : 'keep-edited';
      }
      const writeTo = action === 'unchanged' || action === 'edited' ? null : action === 'keep-edited' ? `${destination}.new` : destination;
      plan.push({ path: destination, writeTo, action, content: file.content, sha256: file.sha256, target });
    }
  }
  return plan;
}

/** Writes the plan atomically, file by file, and records everything in the manifest. */
export function applyPlan(plan: PlannedFile[], env: Env, version: string): void {
  const manifest = readManifest(env);
  for (const item of plan) {
    const record = (file: string, pending: boolean): void => {
      manifest.files = manifest.files.filter((entry) => entry.path !== file);
      const entry: ManifestFile = { path: file, sha256: item.sha256, version, agents: item.target.agents.map((a) => a.id), scope: item.target.scope, skillsDir: item.target.skillsDir };
      if (pending) entry.pending = true;
      manifest.files.push(entry);
    };
    if (item.writeTo) {
      for (const dir of missingDirs(path.dirname(item.writeTo))) {
        fs.mkdirSync(dir);
        if (!manifest.createdDirs.includes(dir)) manifest.createdDirs.push(dir);
      }
      writeFileAtomic(item.writeTo, item.content);
    }
    if (item.action === 'keep-edited') record(item.writeTo!, true);
    // A file the user edited stays recorded with the hash we wrote, so it still reads as edited.
    else if (item.action !== 'edited' && (item.action !== 'unchanged' || !manifest.files.some((entry) => entry.path === item.path))) record(item.path, false);
  }
  writeManifest(env, manifest);
}

/** Directories that do not exist yet on the way down to `dir`, outermost first. */
function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let current = dir; !fs.existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  return missing;
}

export type RemovalAction = 'remove' | 'keep-edited' | 'missing';

export interface PlannedRemoval {
  entry: ManifestFile;
  action: RemovalAction;
}

/** Which of our files go; a file the user edited stays unless forced. Filter by agents if given. */
export function planUninstall(manifest: Manifest, force: boolean, agentIds?: string[]): PlannedRemoval[] {
  return manifest.files
    .filter((entry) => !agentIds?.length || entry.agents.some((id) => agentIds.includes(id)))
    .map((entry) => {
      if (!fs.existsSync(entry.path)) return { entry, action: 'missing' as const };
      const edited = sha256(fs.readFileSync(entry.path)) !== entry.sha256;
      return { entry, action: edited && !force ? ('keep-edited' as const) : ('remove' as const) };
    });
}

export function applyUninstall(removals: PlannedRemoval[], env: Env): void {
  const manifest = readManifest(env);
  for (const removal of removals) {
    if (removal.action === 'remove') fs.rmSync(removal.entry.path, { force: true });
    if (removal.action !== 'keep-edited') manifest.files = manifest.files.filter((entry) => entry.path !== removal.entry.path);
  }
  // Directories we created go too, deepest first, but only when nothing is left in them.
  const dirs = [...manifest.createdDirs].sort((a, b) => b.length - a.length);
  for (const dir of dirs) {
    try {
      if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
    } catch {
      // already gone
    }
    if (!fs.existsSync(dir)) manifest.createdDirs = manifest.createdDirs.filter((entry) => entry !== dir);
  }
  writeManifest(env, manifest);
}

/** The distinct install targets recorded in the manifest (for update and list). */
export function installedTargets(manifest: Manifest): Target[] {
  const byDir = new Map<string, Target>();
  for (const entry of manifest.files) {
    if (entry.pending) continue;
    const target = byDir.get(entry.skillsDir) ?? { skillsDir: entry.skillsDir, agents: [], scope: entry.scope };
    for (const id of entry.agents) {
      const agent = AGENTS.find((a) => a.id === id);
      if (agent && !target.agents.includes(agent)) target.agents.push(agent);
    }
    byDir.set(entry.skillsDir, target);
  }
  return [...byDir.values()];
}
