// `assetgen init` as plan → apply: every file it would create or change, with the exact splices
// (so the diff shown is what is written), then the writes — all by the one confinement rule
// (src/files/confine.ts), never through a link, never over a file that changed since it was shown.
// Only project-level files: a per-file `.meta` (Unity) or `.import` (Godot) is the engine's own
// and is never written (tools that write them break projects with GUID collisions).
import fs from 'node:fs';
import path from 'node:path';
import { createFileInsideSync, placeToWrite, readRegularFileSync, writeFileInsideSync } from '../files/confine.js';
import { PipelineError } from '../pipeline/errors.js';
import type { Manifest } from '../pipeline/records.js';
import { defoldSplices, DEFOLD_FILE } from './defold.js';
import { EngineSetupError } from './errors.js';
import { GITIGNORE, gitignoreSplices } from './gitignore.js';
import { godotSplices, GODOT_FILE } from './godot.js';
import { applySplices, type Splice } from './text-edit.js';
import type { Engine } from './names.cjs';
import { UNITY_MARKER, UNITY_SCRIPT, unityFolders, unityScript } from './unity.js';
import { PHASER_SNIPPET, PIXI_SNIPPET } from './web.js';

export { ENGINES, type Engine } from './names.cjs';

/** One file `init` creates or changes (or finds as it would make it). */
export interface PlannedChange {
  /** Relative to the project root, forward slashes. */
  path: string;
  action: 'create' | 'update' | 'unchanged';
  /** The file as read (null: there is none); `after` is it with `splices` applied. */
  before: string | null;
  after: string;
  splices: Splice[];
  /** What the change is for, for people. */
  purpose: string;
  /** The diff is shown (the starter manifest is only named: it is long, and new). */
  showDiff: boolean;
}

/** What an engine gets: its files' changes, and for Phaser and PixiJS the code to add instead. */
export interface EngineSetup {
  changes: PlannedChange[];
  snippet?: { language: 'js'; code: string; where: string };
  /** Output folders the engine does not import (Unity: outside Assets/), named in a warning. */
  outside?: string[];
}

/** Project files larger than this are not read (a project.godot is a few KB). */
const MAX_PROJECT_FILE = 4 * 1024 * 1024;

/** A project file's text, or null when there is none; a link or a non-file there is refused (it will be written). */
export function readProjectFile(root: string, file: string): string | null {
  const place = placeToWrite(root, file);
  if (place.entry === 'none') return null;
  const bytes = readRegularFileSync(place.file, file);
  if (bytes.length > MAX_PROJECT_FILE)
    throw new PipelineError(`${file} is ${bytes.length} bytes; assetgen edits project files of at most ${MAX_PROJECT_FILE} bytes.`);
  return bytes.toString('utf8');
}

/** The change that splices an existing file (or none for `unchanged`). */
export function spliceChange(file: string, before: string, splices: Splice[], purpose: string): PlannedChange {
  return {
    path: file,
    action: splices.length ? 'update' : 'unchanged',
    before,
    after: applySplices(before, splices),
    splices,
    purpose,
    showDiff: true,
  };
}

/** The change that creates a file with `content` (or finds it there already, the same). */
export function createChange(file: string, before: string | null, content: string, purpose: string, showDiff = true): PlannedChange {
  if (before === content) return { path: file, action: 'unchanged', before, after: content, splices: [], purpose, showDiff };
  const splices = [{ start: 0, end: before?.length ?? 0, text: content }];
  return { path: file, action: before === null ? 'create' : 'update', before, after: content, splices, purpose, showDiff };
}

/** The .gitignore lines docs/build.md asks for, added to the project's (made when missing). */
export function gitignoreChange(root: string, lines: readonly string[]): PlannedChange {
  const before = readProjectFile(root, GITIGNORE);
  const splices = gitignoreSplices(before ?? '', lines);
  const purpose = 'the lock writer’s claim and journal, the default gallery and temp files: never committed';
  if (before === null) return createChange(GITIGNORE, null, applySplices('', splices), purpose);
  return spliceChange(GITIGNORE, before, splices, purpose);
}

/** The engine's project-level defaults for pixel art (nearest filtering, no mipmaps, lossless). */
export function engineSetup(engine: Engine, root: string, manifest: Pick<Manifest, 'assets'>): EngineSetup {
  switch (engine) {
    case 'godot':
      return { changes: [godotChange(root)] };
    case 'defold': {
      const before = required(root, DEFOLD_FILE, 'Defold');
      return { changes: [spliceChange(DEFOLD_FILE, before, defoldSplices(before), 'the default texture filters: nearest')] };
    }
    case 'unity':
      return unitySetup(root, manifest);
    case 'phaser':
      return { changes: [], snippet: { language: 'js', code: PHASER_SNIPPET, where: 'your Phaser game config' } };
    case 'pixi':
      return {
        changes: [],
        snippet: { language: 'js', code: PIXI_SNIPPET, where: 'your PixiJS 8 start-up code, before any texture loads' },
      };
  }
}

function godotChange(root: string): PlannedChange {
  const before = required(root, GODOT_FILE, 'Godot');
  return spliceChange(GODOT_FILE, before, godotSplices(before), 'canvas texture filter Nearest; texture imports lossless, without mipmaps');
}

function unitySetup(root: string, manifest: Pick<Manifest, 'assets'>): EngineSetup {
  if (!fs.statSync(path.join(root, 'Assets'), { throwIfNoEntry: false })?.isDirectory())
    throw new EngineSetupError(
      `No Assets/ folder in ${root}: not a Unity project's folder.`,
      'Run this in your Unity project (where Assets/ is), with the manifest there, or point -f at one there.',
    );
  const { folders, outside } = unityFolders(manifest);
  const before = readProjectFile(root, UNITY_SCRIPT);
  if (before !== null && !before.startsWith(UNITY_MARKER))
    throw new EngineSetupError(
      `${UNITY_SCRIPT} is there and was not written by assetgen: it is left as it is.`,
      'Rename or remove it, then run this again.',
    );
  const purpose = `an editor script: Point, uncompressed, no mipmaps on first import in ${folders.join(', ')}`;
  return { changes: [createChange(UNITY_SCRIPT, before, unityScript(folders), purpose)], ...(outside.length ? { outside } : {}) };
}

/** An engine's project file, which must be there: assetgen sets keys in it, it never makes one. */
function required(root: string, file: string, engine: string): string {
  const text = readProjectFile(root, file);
  if (text === null)
    throw new EngineSetupError(
      `No ${file} in ${root}: not a ${engine} project's folder.`,
      `Run this in your ${engine} project (where ${file} is), with the manifest there, or point -f at one there.`,
    );
  return text;
}

/** True when applying the changes writes anything. */
export const changesSomething = (changes: readonly PlannedChange[]): boolean => changes.some((change) => change.action !== 'unchanged');

/**
 * Writes the changes under `root`, each by the confinement rule: a new file is created only when
 * nothing is there (never over one that appeared meanwhile), a changed one only while it still
 * holds the text the diff was made from (its mode kept). All are checked before the first write.
 * Returns the paths written.
 */
export function applyChanges(root: string, changes: readonly PlannedChange[]): string[] {
  const due = changes.filter((change) => change.action !== 'unchanged');
  for (const change of due) {
    const place = placeToWrite(root, change.path);
    const now = place.entry === 'none' ? null : readRegularFileSync(place.file, change.path, 'utf8');
    if (now !== change.before)
      throw new PipelineError(
        `${change.path} changed while you were asked; nothing was written.`,
        'Run `assetgen init` again to see the new diff.',
      );
  }
  for (const change of due) {
    if (change.action === 'create') {
      if (!createFileInsideSync(root, change.path, change.after))
        throw new PipelineError(`${change.path} appeared while it was being written; nothing was written over it.`);
    } else {
      const mode = fs.statSync(placeToWrite(root, change.path).file).mode & 0o777;
      writeFileInsideSync(root, change.path, change.after, change.path, { mode });
    }
  }
  return due.map((change) => change.path);
}
