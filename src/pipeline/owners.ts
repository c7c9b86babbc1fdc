// Outputs are owned: every file an asset can write is known before paying, and two assets that can
// write the same file make a manifest that is refused (exit 2, both named). An image or a video
// writes `<stem>.<ext>` (validate.ts already refuses two of one stem), or with a `slice` step
// `<stem>-<n>.<ext>` for each frame; a workflow writes
// `<dir>/<id>-<node>.<ext>` for each of its nodes, whose ids come from the lock (files it made
// before) or the service's `workflows list`. Saving checks again: never over a file the lock gives
// to another asset.
import { PipelineError } from './errors.js';
import path from 'node:path';
import { safeFileName } from '../files/media.js';
import type { FileHashes, Lock, Manifest, ManifestAsset } from './records.js';
import { entryOf } from './lock-history.js';
import { isFrameStem, outputStem, stemOf } from './paths.js';
import { slices } from '../imaging/post-steps.js';

/** Node ids of each workflow, by workflow id, as far as they are known. */
export type WorkflowNodes = ReadonlyMap<string, readonly string[]>;

/** The stem (project path without extension, lower-cased) a workflow's node saves to, named as the save names it. */
export function workflowStem(asset: Pick<ManifestAsset, 'id' | 'out'>, nodeId: string): string {
  const dir = asset.out.type === 'folder' ? asset.out.dir : path.posix.dirname(asset.out.path);
  return stemOf(path.posix.join(dir, safeFileName(`${asset.id}-${nodeId}.png`)));
}

/** What a workflow asset's files start with: any other output there might be one of its nodes'. */
const workflowPrefix = (asset: ManifestAsset): string => workflowStem(asset, '');

/**
 * The workflows whose node ids planning must ask the service for: those of the workflow assets the
 * build runs (`running`: submits or resumes; a workflow left alone writes nothing, and when a later
 * build runs it, that build asks) that might write over another asset's output (by name prefix) and
 * whose files the lock does not record yet. Usually none.
 */
export function workflowsToList(manifest: Manifest, lock: Lock, running: ReadonlySet<string>): string[] {
  if (!running.size) return [];
  const outputs = manifest.assets.map((asset) =>
    asset.kind === 'workflow'
      ? { workflow: true, stem: workflowPrefix(asset) }
      : { workflow: false, stem: outputStem(asset.out, asset.id) },
  );
  const wanted = new Set<string>();
  manifest.assets.forEach((asset, index) => {
    if (asset.kind !== 'workflow' || !running.has(asset.id) || knownFromLock(asset, lock)) return;
    const prefix = workflowPrefix(asset);
    const mightMeet = outputs.some(
      (other, at) => at !== index && (other.stem.startsWith(prefix) || (other.workflow && prefix.startsWith(other.stem))),
    );
    if (mightMeet) wanted.add(asset.workflow!);
  });
  return [...wanted];
}

/** The stems a workflow asset's last finish recorded, when it was made by the same workflow. */
function knownFromLock(asset: ManifestAsset, lock: Lock): string[] | undefined {
  const entry = entryOf(lock, asset.id);
  if (!entry?.spec || entry.kind !== 'workflow' || entry.workflow !== asset.workflow || !entry.files.length) return undefined;
  return entry.files.map((file) => stemOf(file.path));
}

/** Every stem an asset can write, as far as known. */
function stemsOf(asset: ManifestAsset, lock: Lock, nodes: WorkflowNodes): string[] {
  if (asset.kind !== 'workflow') return [outputStem(asset.out, asset.id)];
  const listed = nodes.get(asset.workflow!)?.map((node) => workflowStem(asset, node)) ?? [];
  return [...new Set([...(knownFromLock(asset, lock) ?? []), ...listed])];
}

/**
 * Refuses (PipelineError, exit 2) a manifest in which two assets can write one file, and an asset about
 * to be generated (`generating`) whose output is a file on disk that the lock gives to another asset.
 */
export function checkOwnership(
  manifest: Manifest,
  lock: Lock,
  hashes: FileHashes,
  generating: ReadonlySet<string>,
  nodes: WorkflowNodes,
): void {
  const problems: string[] = [];
  const owners = new Map<string, string>();
  const claim = (asset: ManifestAsset, stem: string): void => {
    const other = owners.get(stem);
    if (other && other !== asset.id) problems.push(`"${asset.id}" and "${other}" can both write ${stem}.*`);
    else owners.set(stem, asset.id);
  };
  for (const asset of manifest.assets) {
    // One stem but for a workflow, without a list for it: this runs for every asset of every plan.
    if (asset.kind !== 'workflow') claim(asset, outputStem(asset.out, asset.id));
    else for (const stem of stemsOf(asset, lock, nodes)) claim(asset, stem);
  }
  // A `slice` writes `<stem>-<n>` for every frame it finds: no other output may be named so.
  for (const asset of manifest.assets) {
    if (!slices(asset.post)) continue;
    const own = outputStem(asset.out, asset.id);
    for (const [stem, other] of owners)
      if (other !== asset.id && isFrameStem(stem, own))
        problems.push(`"${asset.id}" (its frames ${own}-<n>.*) and "${other}" can both write ${stem}.*`);
  }
  // The lock's owners matter only to what is about to be saved (nothing, in an up-to-date plan).
  const locked = new Map<string, { id: string; path: string }>();
  if (generating.size)
    for (const [id, entry] of Object.entries(lock.assets))
      for (const file of entry.files) if (hashes.get(file.path)) locked.set(stemOf(file.path), { id, path: file.path });
  for (const asset of manifest.assets) {
    if (!generating.has(asset.id)) continue;
    for (const stem of stemsOf(asset, lock, nodes)) {
      const owner = locked.get(stem);
      if (owner && owner.id !== asset.id)
        problems.push(`"${asset.id}" would write over ${owner.path}, which assetgen.lock gives to "${owner.id}"`);
    }
  }
  if (problems.length)
    throw new PipelineError(
      // Nodes from the service's list: that call was sent (charged with the API key; the credits line says).
      `Two assets would write the same file (${nodes.size ? 'no asset was sent' : 'nothing was sent'}):\n  ${[...new Set(problems)].join('\n  ')}`,
      'Give them different `out` folders or ids; for an asset gone from the manifest, `assetgen build --prune <id>` deletes its files first.',
    );
}

/**
 * Who owns each file of a build, for the save's last check: the lock's owners (of files still on
 * disk, as planning judged them), then whoever saved a file first in this build. Project paths,
 * compared by stem (one stem, one file).
 */
export class OutputClaims {
  readonly #owners = new Map<string, { id: string; path: string }>();
  readonly #exists: (file: string) => boolean;

  constructor(lock: Lock, exists: (file: string) => boolean) {
    for (const [id, entry] of Object.entries(lock.assets))
      for (const file of entry.files) this.#owners.set(stemOf(file.path), { id, path: file.path });
    this.#exists = exists;
  }

  /** Claims `file` for `id`; returns why it may not be written when another asset owns it. */
  claim(file: string, id: string): string | undefined {
    const stem = stemOf(file);
    const owner = this.#owners.get(stem)?.id;
    if (owner !== undefined && owner !== id && this.#exists(this.#owners.get(stem)!.path))
      return `${file} belongs to "${owner}" (assetgen.lock); "${id}" may not write over it.`;
    this.#owners.set(stem, { id, path: file });
    return undefined;
  }
}
