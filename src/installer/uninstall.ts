// Uninstalling: which recorded files to remove, keep or detach, and removing exactly those.
import fs from 'node:fs';
import path from 'node:path';
import type { Env, Scope } from './agents.js';
import { PathRefusedError, placeIn, removeInside } from '../files/confine.js';
import { InstallerError } from './errors.js';
import { hashOf, isInside } from './files.js';
import { readManifest, writeManifest, type Manifest, type ManifestFile } from './manifest.js';

/**
 * - remove: ours and unedited (or --force);  missing: already gone, only forgotten;
 * - keep-edited: the user changed it: stays on disk and in the manifest (until --force);
 * - detach: other agents still use this copy: only the named agents are dropped from it.
 */
export type RemovalAction = 'remove' | 'keep-edited' | 'missing' | 'detach';

export interface PlannedRemoval {
  entry: ManifestFile;
  action: RemovalAction;
  /** Agents that keep the file, for detach. */
  remainingAgents: string[];
}

export interface UninstallFilter {
  agentIds?: string[];
  scope?: Scope;
  /** Only this project's files (project scope). */
  projectDir?: string;
}

/** Which of our files go. Without a filter: everything the manifest lists. */
export function planUninstall(manifest: Manifest, force: boolean, filter: UninstallFilter = {}): PlannedRemoval[] {
  const agentIds = filter.agentIds ?? [];
  const project = filter.projectDir ? path.resolve(filter.projectDir) : undefined;
  return manifest.files
    .filter((entry) => !filter.scope || entry.scope === filter.scope)
    .filter((entry) => !project || (entry.scope === 'project' && entry.projectDir === project))
    .filter((entry) => !agentIds.length || entry.agents.some((id) => agentIds.includes(id)))
    .map((entry) => {
      const remainingAgents = entry.agents.filter((id) => !agentIds.includes(id));
      if (agentIds.length && remainingAgents.length) return { entry, action: 'detach' as const, remainingAgents };
      const onDisk = hashOf(entry.path);
      if (onDisk !== null) confined(entry);
      if (onDisk === null) return { entry, action: 'missing' as const, remainingAgents: [] };
      return { entry, action: onDisk !== entry.sha256 && !force ? ('keep-edited' as const) : ('remove' as const), remainingAgents: [] };
    });
}

export function applyUninstall(removals: PlannedRemoval[], env: Env): void {
  const manifest = readManifest(env);
  const gone: string[] = [];
  try {
    for (const removal of removals) {
      const { path: file } = removal.entry;
      if (removal.action === 'detach') {
        manifest.files = manifest.files.map((entry) => (entry.path === file ? { ...entry, agents: removal.remainingAgents } : entry));
        continue;
      }
      if (removal.action === 'keep-edited') continue;
      if (removal.action === 'remove') removeInside(rootOf(removal.entry), file);
      manifest.files = manifest.files.filter((entry) => entry.path !== file);
      gone.push(file);
    }
    // Directories we created on the way to those files go too, deepest first, only when empty.
    const candidates = manifest.createdDirs.filter((dir) => gone.some((file) => isInside(dir, file))).sort((a, b) => b.length - a.length);
    for (const dir of candidates) {
      try {
        if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
      } catch {
        // already gone, or not ours to judge
      }
      if (!fs.existsSync(dir)) manifest.createdDirs = manifest.createdDirs.filter((entry) => entry !== dir);
    }
  } finally {
    writeManifest(env, manifest);
  }
}

/** Where a recorded file must be to be deleted: its project (project scope), else its skills directory. */
const rootOf = (entry: ManifestFile): string => (entry.scope === 'project' && entry.projectDir ? entry.projectDir : entry.skillsDir);

/**
 * A recorded file reached through a link that leads out of its root (a folder swapped for a link
 * since the install) is not deleted: refused before anything is, by the rule the delete uses.
 */
function confined(entry: ManifestFile): void {
  try {
    placeIn(rootOf(entry), entry.path);
  } catch (error) {
    if (!(error instanceof PathRefusedError)) throw error;
    throw new InstallerError(`Not uninstalling: ${error.message}`, {
      code: 'symlink_in_the_way',
      hint: 'assetgen deletes only inside the folder it installed into, never through a link: remove the link, then run the command again.',
    });
  }
}
