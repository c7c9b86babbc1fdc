// Install and update as plan → apply: the plan lists every file and what will happen to it, so a
// dry run prints exactly what a real run does, and apply does nothing the plan did not show.
import fs from 'node:fs';
import path from 'node:path';
import { removeInside } from '../files/confine.js';
import { joinInside, type Env } from './agents.js';
import { InstallerError } from './errors.js';
import { writeFileAtomicSync } from '../files/atomic.js';
import { assertNoLinks, canonical, hashOf, isInside, missingDirs } from './files.js';
import { readManifest, writeManifest, type Manifest, type ManifestFile } from './manifest.js';
import type { RenderedFile } from './render.js';
import { skillRoot, type Target } from './targets.js';

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

export function planInstall(targets: Target[], files: RenderedFile[], manifest: Manifest, force: boolean): PlannedFile[] {
  const plan: PlannedFile[] = [];
  for (const target of targets) {
    assertInsideProject(target);
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

/**
 * A project-scope skill belongs in the project: a `.claude/skills` (or any folder on the way) that
 * is a link to somewhere else would put our files outside it, where nobody reviewing the project
 * sees them and uninstalling another checkout removes them.
 */
function assertInsideProject(target: Target): void {
  if (target.scope !== 'project' || !target.projectDir) return;
  const project = canonical(target.projectDir);
  const resolved = canonical(target.skillsDir);
  if (resolved === project || isInside(project, resolved)) return;
  throw new InstallerError(
    `${target.skillsDir} leads outside the project (to ${resolved}) through a symbolic link; assetgen will not install a project's skill there.`,
    {
      code: 'outside_project',
      hint: 'Replace the link with a real folder, or install for your user with --scope user.',
    },
  );
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
        writeFileAtomicSync(item.writeTo, item.content);
      }
      if (item.removes) {
        removeInside(
          item.target.scope === 'project' && item.target.projectDir ? item.target.projectDir : item.target.skillsDir,
          item.removes,
        );
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
