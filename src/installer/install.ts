// Install, update and uninstall as plan → apply: the plan lists every file and what will happen
// to it, so a dry run prints exactly what a real run does, and apply does nothing the plan did
// not show.
import fs from 'node:fs';
import path from 'node:path';
import { InstallerError } from './errors.js';
import { CODING_AGENTS, alsoReadDirs, joinInside, skillsDir, type AgentRecord, type Env, type Scope } from './agents.js';
import { readManifest, writeFileAtomic, writeManifest, type Manifest, type ManifestFile } from './manifest.js';
import { sha256, SKILL_NAME, type RenderedFile } from './render.js';

export interface Target {
  /** The skills directory the copy goes into (the skill itself is `<skillsDir>/assetgen`). */
  skillsDir: string;
  /** Every agent this copy serves. */
  agents: AgentRecord[];
  scope: Scope;
  /** Project root, for project scope. */
  projectDir?: string;
}

/**
 * - create: new file;  unchanged: already identical;  update: ours, unedited, new content;
 * - overwrite: --force over a file the user changed or that is not ours;
 * - edited: the user changed our file and we have nothing newer: leave it alone;
 * - keep-edited: the user changed it (or it is not ours) and we have a new version: keep theirs,
 *   write ours as `<file>.new` beside it;
 * - pending: like keep-edited, but that `.new` file is already there and current;
 * - conflict: like keep-edited, but a `.new` file we did not write (or one the user edited) is in
 *   the way: nothing is written.
 */
export type FileAction = 'create' | 'unchanged' | 'update' | 'overwrite' | 'edited' | 'keep-edited' | 'pending' | 'conflict';

export interface PlannedFile {
  path: string;
  /** Where the content goes: `path`, `path.new` for keep-edited, or null (nothing to write). */
  writeTo: string | null;
  action: FileAction;
  content: string;
  sha256: string;
  target: Target;
  /** Agents the manifest does not yet record for this file (a manifest-only change). */
  addsAgents: string[];
  /** An obsolete `.new` file of ours to delete, now that the file itself is current. */
  removes: string | null;
}

/** Path of the skill folder inside a skills directory. */
export const skillRoot = (dir: string): string => joinInside(dir, SKILL_NAME);

/** A path with symlinks resolved as far as it exists: two spellings of one directory compare equal. */
function canonical(dir: string): string {
  const rest: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(dir);
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

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

/** Refuses to write through a symlink below the skills directory: we write copies, never via links. */
function assertNoLinks(base: string, file: string): void {
  const parts = path.relative(base, file).split(path.sep);
  let current = base;
  for (const part of parts) {
    current = path.join(current, part);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(current);
    } catch {
      return; // does not exist yet: nothing below it can be a link either
    }
    if (stat.isSymbolicLink()) {
      throw new InstallerError(`${current} is a symbolic link; assetgen writes real copies and will not write through it.`, {
        code: 'symlink_in_the_way',
        hint: 'Remove the link (or pick another agent or scope), then run the command again.',
      });
    }
  }
}

/** The sha256 of a file, or null when it cannot be read (gone, say). */
export const hashOf = (file: string): string | null => {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return null;
  }
};

export function planInstall(targets: Target[], files: RenderedFile[], manifest: Manifest, force: boolean): PlannedFile[] {
  const plan: PlannedFile[] = [];
  for (const target of targets) {
    const root = skillRoot(target.skillsDir);
    for (const file of files) {
      const destination = joinInside(root, file.relative);
      assertNoLinks(target.skillsDir, destination);
      assertNoLinks(target.skillsDir, `${destination}.new`);
      const recorded = manifest.files.find((entry) => entry.path === destination && !entry.pending);
      const pendingEntry = manifest.files.find((entry) => entry.path === `${destination}.new` && entry.pending);
      const onDisk = hashOf(destination);
      let action: FileAction;
      if (onDisk === null) action = 'create';
      else if (onDisk === file.sha256) action = 'unchanged';
      else if (recorded && recorded.sha256 === onDisk) action = 'update';
      else if (force) action = 'overwrite';
      else if (recorded && recorded.sha256 === file.sha256) action = 'edited';
      else {
        const beside = hashOf(`${destination}.new`);
        if (beside === null || (pendingEntry && pendingEntry.sha256 === beside && beside !== file.sha256)) action = 'keep-edited';
        else if (beside === file.sha256) action = 'pending';
        else action = 'conflict';
      }
      const writeTo =
        action === 'keep-edited' ? `${destination}.new` : ['create', 'update', 'overwrite'].includes(action) ? destination : null;
      // Once the file itself is current, our `.new` beside it is obsolete (unless the user edited it).
      const current = ['create', 'update', 'overwrite', 'unchanged'].includes(action);
      const removes = current && pendingEntry && hashOf(pendingEntry.path) === pendingEntry.sha256 ? pendingEntry.path : null;
      const known = new Set(recorded?.agents ?? []);
      const addsAgents = target.agents.map((agent) => agent.id).filter((id) => !known.has(id));
      plan.push({ path: destination, writeTo, action, content: file.content, sha256: file.sha256, target, addsAgents, removes });
    }
  }
  return plan;
}

/** True when applying the plan would change anything on disk or in the manifest. */
export function planChangesSomething(plan: PlannedFile[]): boolean {
  return plan.some((item) => item.writeTo !== null || item.removes !== null || item.addsAgents.length > 0);
}

/** Writes the plan atomically, file by file, and records everything in the manifest. */
export function applyPlan(plan: PlannedFile[], env: Env, version: string): void {
  const manifest = readManifest(env);
  const upsert = (entry: ManifestFile): void => {
    manifest.files = manifest.files.filter((existing) => existing.path !== entry.path);
    manifest.files.push(entry);
  };
  try {
    for (const item of plan) {
      const existing = manifest.files.find((entry) => entry.path === item.path && !entry.pending);
      const agents = [...new Set([...(existing?.agents ?? []), ...item.target.agents.map((agent) => agent.id)])];
      const base = {
        agents,
        scope: item.target.scope,
        skillsDir: item.target.skillsDir,
        ...(item.target.projectDir ? { projectDir: item.target.projectDir } : {}),
      };
      if (item.writeTo) {
        for (const dir of missingDirs(path.dirname(item.writeTo))) {
          fs.mkdirSync(dir);
          if (!manifest.createdDirs.includes(dir)) manifest.createdDirs.push(dir);
        }
        writeFileAtomic(item.writeTo, item.content);
      }
      if (item.removes) {
        fs.rmSync(item.removes, { force: true });
        manifest.files = manifest.files.filter((entry) => entry.path !== item.removes);
      }
      switch (item.action) {
        case 'create':
        case 'update':
        case 'overwrite':
          upsert({ path: item.path, sha256: item.sha256, version, ...base });
          break;
        case 'unchanged':
          // Identical content: ours now (a byte-identical file is indistinguishable from ours).
          upsert({ path: item.path, sha256: item.sha256, version: existing?.sha256 === item.sha256 ? existing.version : version, ...base });
          break;
        case 'keep-edited':
        case 'edited':
        case 'pending':
        case 'conflict':
          if (item.action === 'keep-edited') upsert({ path: item.writeTo!, sha256: item.sha256, version, ...base, pending: true });
          // The edited file stays recorded with the hash we wrote, so it still reads as edited.
          if (existing) upsert({ ...existing, agents });
          break;
      }
    }
  } finally {
    // Even after a failed write, what was written is recorded: uninstall can still find it.
    writeManifest(env, manifest);
  }
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
