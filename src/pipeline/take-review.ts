// An asset's takes as the lock records them (LockEntry.candidates, `picked`), read for looking at:
// each take's file read from the project by the confinement rule, checked against its recorded
// hash, measured (imaging/take-metrics.ts). What `assetgen takes`, the contact sheet and the gallery
// show (the commands that pick one are spelled by the CLI: commands/project/takes.ts). The lock's
// reader has checked each take's record (lock.ts); the files are read as untrusted. Prints nothing.
import fs from 'node:fs';
import { placeIn, readRegularFile } from '../files/confine.js';
import type { RawImage } from '../imaging/raw.js';
import type { TakeMetrics } from '../imaging/take-metrics.js';
import { sha256 } from './hash.js';
import type { LockedTake, LockEntry } from './records.js';
import { pickedTake } from './takes.js';

/** A take file larger than this is not read (its card says so): takes are pictures, not archives. */
export const MAX_TAKE_BYTES = 64 * 1024 * 1024;

/** The entry's takes in order of k ([] for an asset without takes); the lock's reader checked each (lock.ts). */
export function takesOf(entry: Pick<LockEntry, 'candidates'> | undefined): LockedTake[] {
  return [...(entry?.candidates ?? [])].sort((a, b) => a.k - b.k);
}

export interface LookedTake extends LockedTake {
  picked: boolean;
  /** ok: the bytes the lock records; edited: changed since; missing: not there (or not a regular file); unreadable: too large or not an image. */
  state: 'ok' | 'edited' | 'missing' | 'unreadable';
  /** Why it is not ok, for people. */
  problem?: string;
  metrics?: TakeMetrics;
  /** The file's bytes and pixels, when read (the gallery embeds the bytes, the contact sheet draws the pixels). */
  bytes?: Buffer;
  image?: RawImage;
}

/**
 * Reads and measures every take of an entry under `root`, one at a time (a take's pixels can be
 * large); `pixels` keeps each take's decoded pixels (for the contact sheet). A take that cannot be
 * read says why: this never throws for one.
 */
export async function lookAtTakes(
  root: string,
  id: string,
  entry: Pick<LockEntry, 'candidates' | 'picked'> | undefined,
  options: { pixels: boolean },
): Promise<LookedTake[]> {
  const picked = entry ? pickedTake(entry) : 1;
  const looked: LookedTake[] = [];
  for (const take of takesOf(entry)) looked.push(await lookAtTake(root, take, take.k === picked, options.pixels));
  return looked;
}

async function lookAtTake(root: string, take: LockedTake, picked: boolean, keepPixels: boolean): Promise<LookedTake> {
  const base = { ...take, picked };
  let bytes: Buffer;
  try {
    const place = placeIn(root, take.file);
    if (place.entry !== 'file') return { ...base, state: 'missing', problem: place.entry === 'none' ? 'missing' : 'not a regular file' };
    const size = (await fs.promises.lstat(place.file)).size;
    if (size > MAX_TAKE_BYTES)
      return { ...base, state: 'unreadable', problem: `too large to look at (${Math.round(size / 1024 / 1024)} MB)` };
    bytes = await readRegularFile(place.file, take.file);
  } catch (error) {
    return { ...base, state: 'missing', problem: error instanceof Error ? error.message : String(error) };
  }
  const state = sha256(bytes) === take.sha256 && bytes.length === take.size ? 'ok' : 'edited';
  try {
    const { measureTake } = await import('../imaging/take-metrics.js');
    const { metrics, image } = await measureTake(bytes, take.file);
    const edited = state === 'edited' ? { problem: 'changed since assetgen wrote it' } : {};
    return { ...base, state, ...edited, metrics, bytes, ...(keepPixels ? { image } : {}) };
  } catch (error) {
    return { ...base, state: 'unreadable', problem: error instanceof Error ? error.message : String(error), bytes };
  }
}

/** The contact sheet of looked-at takes (imaging/contact-sheet.ts), with its layout naming each take's file. */
export async function contactSheetOf(id: string, takes: readonly LookedTake[]) {
  const { renderContactSheet } = await import('../imaging/contact-sheet.js');
  const sheet = await renderContactSheet(takes.map((take) => ({ k: take.k, picked: take.picked, image: take.image ?? null })));
  const files = new Map(takes.map((take) => [take.k, take.file]));
  const layout = {
    asset: id,
    ...sheet.layout,
    takes: sheet.layout.takes.map((cell) => ({ ...cell, file: files.get(cell.k)! })),
  };
  return { png: sheet.png, layout };
}

/**
 * The contact sheet of takes saved outside a lock (`generate --variants`): take k is files[k - 1].
 * A take that cannot be read or decoded is an empty cell, still numbered.
 */
export async function contactSheetOfFiles(files: readonly string[]): Promise<Buffer> {
  const { renderContactSheet } = await import('../imaging/contact-sheet.js');
  const { measureTake } = await import('../imaging/take-metrics.js');
  const takes = [];
  for (const [index, file] of files.entries()) {
    let image: RawImage | null = null;
    try {
      image = (await measureTake(await readRegularFile(file), file)).image;
    } catch {
      // Drawn as an empty cell: the take's number still says which file it is.
    }
    takes.push({ k: index + 1, picked: false, image });
  }
  return (await renderContactSheet(takes)).png;
}
