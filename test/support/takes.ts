// Takes in a project as a build with `variants` records them (docs/build.md): real PNG files under
// .assetgen/candidates/<id>/<k>.png and the lock entry's `candidates` and `picked`, written into the
// lock a real build left. For the tests of what looks at takes (the `takes` command, the gallery),
// which need no paid call to have some.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readLock, writeLockAtomicSync } from '../../src/pipeline/lock.js';
import type { LockedTake } from '../../src/pipeline/records.js';
import { makePixels, toPng, type RGBA } from '../imaging/pixels.js';

/** A width × height PNG of `paint` (x, y → RGBA), encoded by sharp. */
export const pngOf = (width: number, height: number, paint: (x: number, y: number) => RGBA): Promise<Buffer> =>
  toPng(makePixels(width, height, paint));

/**
 * Gives asset `id` of the lock next to `root`'s manifest one take per PNG (k from 1), each charged
 * `credits`, take `picked` picked; returns the takes as recorded.
 */
export function addTakes(root: string, id: string, pngs: readonly Buffer[], picked: number, credits = 10): LockedTake[] {
  const lockFile = path.join(root, 'assetgen.lock');
  const lock = readLock(lockFile);
  const entry = lock.assets[id];
  if (!entry) throw new Error(`addTakes: ${id} is not in ${lockFile}`);
  const takes = pngs.map((png, index): LockedTake => {
    const file = `.assetgen/candidates/${id}/${index + 1}.png`;
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), png);
    return { k: index + 1, file, sha256: crypto.createHash('sha256').update(png).digest('hex'), size: png.length, credits };
  });
  entry.candidates = takes;
  entry.picked = picked;
  writeLockAtomicSync(lockFile, lock);
  return takes;
}
