// Sheets in a build (docs/build.md "Sheets"): once the paid work is done, each sheet the plan packs
// reads its inputs' files as the lock now records them, packs them into one atlas (src/imaging:
// sharp loaded here, on first use), and writes the PNG and its TexturePacker JSON beside it. No
// paid call. Every path read or written goes through the confinement rule (src/files/confine.ts).
import path from 'node:path';
import { PathRefusedError, placeIn, placeToWrite, readRegularFile, removeInside, writeFileInside } from '../../files/confine.js';
import { sha256 } from '../../pipeline/hash.js';
import type { TrimPlacement, LockedFile, LockEntry, PlanItem } from '../../pipeline/records.js';
import { resolveAnimations, sheetFiles, sheetFrames, sheetSpecHash } from '../../pipeline/sheet.js';
import type { AssetRun, ItemResult } from './records.js';

/**
 * Packs one sheet. `unfinished` names the assets this build set out to make and did not: a sheet
 * with one of them as an input is skipped (packing the old file would hide the failure).
 */
export async function packSheet(run: AssetRun, item: PlanItem, unfinished: ReadonlySet<string>): Promise<ItemResult> {
  const asset = item.asset!;
  const sheet = asset.sheet!;
  const fail = (reason: string, outcome: 'failed' | 'skipped' = 'failed'): ItemResult => ({
    id: item.id,
    outcome,
    files: [],
    credits: 0,
    reason,
  });
  try {
    const inputs = item.inputs ?? [];
    const waiting = inputs.filter((id) => unfinished.has(id));
    if (waiting.length) return fail(`not packed: ${waiting.join(', ')} not built in this build`, 'skipped');
    const lock = run.writer.lock;
    const frames = sheetFrames(inputs, (id) => (lock.assets[id]?.files ?? []).map((file) => file.path), item.frameInputs);
    const unbuilt = inputs.filter((id) => !lock.assets[id]?.files.length);
    if (unbuilt.length) return fail(`not packed: ${unbuilt.join(', ')} not built yet`, 'skipped');
    if (!frames.length) return fail('its inputs have no image files to pack');
    const animations =
      sheet.animations &&
      resolveAnimations(
        sheet.animations,
        frames.map((frame) => frame.name),
      );
    if (animations?.unknown.length) return fail(`not packed: animations name no frame of the sheet (${animations.unknown.join('; ')})`);
    const placed = frameTrims(inputs, lock.assets);
    const read: { name: string; bytes: Buffer; file: LockedFile; placed?: TrimPlacement }[] = [];
    for (const frame of frames) {
      const place = placeIn(run.root, frame.path);
      if (place.entry !== 'file') throw new PathRefusedError(`${frame.path} is not a regular file; a sheet reads no link or folder.`);
      const bytes = await readRegularFile(place.file, frame.path);
      const file = { path: frame.path, sha256: sha256(bytes), size: bytes.length };
      read.push({ name: frame.name, bytes, file, ...(placed.has(frame.path) ? { placed: placed.get(frame.path) } : {}) });
    }
    const [png, json] = sheetFiles(asset.out.type === 'file' ? asset.out.path : `${asset.id}.png`);
    // Both files claimed and checked before either is written: a sheet is never half written.
    for (const file of [png, json]) {
      const refusal = run.claims.claim(file, asset.id);
      if (refusal) throw new PathRefusedError(refusal, 'Give the assets different outputs.');
      placeToWrite(run.root, file);
    }
    const { packAtlas, atlasJson } = await import('../../imaging/atlas.js');
    // Options the manifest leaves out take the packer's defaults (an undefined would replace them).
    const { from: _from, animations: _animations, ...given } = sheet;
    const options = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
    const atlas = await packAtlas(read, { ...options, image: path.posix.basename(png), animations: animations?.animations });
    const data = Buffer.from(atlasJson(atlas.data));
    await writeFileInside(run.root, png, atlas.png);
    await writeFileInside(run.root, json, data);
    // Files of an earlier pack that this one does not write again (the sheet's `out` moved).
    for (const stale of item.files)
      if (stale.state === 'ok' && stale.path !== png && stale.path !== json) removeInside(run.root, stale.path);
    const files = [
      { path: png, sha256: sha256(atlas.png), size: atlas.png.length },
      { path: json, sha256: sha256(data), size: data.length },
    ];
    const spec = sheetSpecHash(sheet, inputs);
    await run.writer.packed(item.id, {
      kind: 'sheet',
      spec,
      files,
      inputs: read.map((frame) => frame.file),
      finishedAt: new Date().toISOString(),
    });
    return { id: item.id, outcome: 'built', files: [png, json], credits: 0 };
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

/** Where each trimmed frame of a sliced input sat in its cell (the lock's `trims`), by file path. */
function frameTrims(inputs: readonly string[], entries: Readonly<Record<string, LockEntry>>): Map<string, TrimPlacement> {
  const placed = new Map<string, TrimPlacement>();
  for (const id of inputs) {
    const entry = entries[id];
    entry?.trims?.forEach((trim, index) => placed.set(entry.files[index].path, trim));
  }
  return placed;
}
