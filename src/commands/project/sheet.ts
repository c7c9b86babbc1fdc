// Sheets in a build (docs/build.md "Sheets"): once the paid work is done, each sheet the plan packs
// reads its inputs' files as the lock now records them, packs them into one atlas page or several
// (src/imaging: sharp loaded here, on first use), and writes each page's PNG and JSON beside the
// sheet's `out` (docs/imaging.md "Pages"). No paid call. Every path read or written goes through the
// confinement rule (src/files/confine.ts); every file is made in full before any is moved into place.
import path from 'node:path';
import {
  discardTemp,
  makeTempInside,
  type MadeTemp,
  moveIntoPlace,
  PathRefusedError,
  placeIn,
  placeToWrite,
  readRegularFile,
  removeInside,
} from '../../files/confine.js';
import { sha256 } from '../../pipeline/hash.js';
import { listIds } from '../../pipeline/id-list.js';
import type { TrimPlacement, LockedFile, PlanItem } from '../../pipeline/records.js';
import { resolveAnimations, sheetFiles, sheetFrames, sheetSpecHash, unbuiltInputs } from '../../pipeline/sheet.js';
import type { LockWriter } from '../../pipeline/writer.js';
import type { AssetRun, ItemResult } from './records.js';
import { buildFailure, type BuildFailure } from '../../pipeline/errors.js';

/** A sheet its inputs cannot make as the manifest asks (no image among them, an animation naming no frame): packing again fails the same way. */
const UNPACKABLE: BuildFailure = { code: 'bad_atlas_input', repeats: true };

/**
 * The sheets the build's last step goes through, in the plan's order: those it packs, and those the
 * plan leaves unpacked because an input was never built and is not made by this build, which
 * packSheet ends as `skipped` (their earlier atlas untouched; docs/build.md "Sheets") — not `kept`,
 * the outcome of a sheet left alone for a hand edit or a file assetgen did not make.
 */
export function sheetsToPack(items: readonly PlanItem[], writer: Pick<LockWriter, 'entry'>): PlanItem[] {
  const building = new Set(items.filter((item) => item.action !== 'none' && item.action !== 'keep').map((item) => item.id));
  const lockedFiles = (id: string): LockedFile[] | undefined => writer.entry(id)?.files;
  return items.filter(
    (item) =>
      item.kind === 'sheet' &&
      (item.action === 'reprocess' ||
        (item.action === 'keep' && item.status !== 'edited' && unbuiltInputs(item.inputs ?? [], building, lockedFiles).length > 0)),
  );
}

/**
 * Packs one sheet. `unfinished` names the assets this build set out to make and did not: a sheet
 * with one of them as an input is skipped (packing the old file would hide the failure), as is one
 * the plan left unpacked for an input never built.
 */
export async function packSheet(run: AssetRun, item: PlanItem, unfinished: ReadonlySet<string>): Promise<ItemResult> {
  const asset = item.asset!;
  const sheet = asset.sheet!;
  const fail = (reason: string, outcome: 'failed' | 'skipped' = 'failed', error?: BuildFailure): ItemResult => ({
    id: item.id,
    outcome,
    files: [],
    credits: 0,
    reason,
    ...(outcome === 'failed' ? { error: error ?? UNPACKABLE } : {}),
  });
  // Left unpacked by the plan (sheetsToPack): an input never built. Skipped, for the plan's reasons.
  if (item.action === 'keep') return fail(item.reasons.join('; '), 'skipped');
  const made: MadeTemp[] = [];
  try {
    const inputs = item.inputs ?? [];
    const waiting = inputs.filter((id) => unfinished.has(id));
    if (waiting.length) return fail(`${listIds(waiting)} not built in this build: not packed`, 'skipped');
    const { pathsOf, placedAt } = readInputs(run, inputs);
    const frames = sheetFrames(inputs, (id) => pathsOf.get(id)!, item.frameInputs);
    const unbuilt = inputs.filter((id) => !pathsOf.get(id)!.length);
    if (unbuilt.length) return fail(`${listIds(unbuilt)} not built yet: not packed`, 'skipped');
    if (!frames.length) return fail('its inputs have no image files to pack');
    const animations =
      sheet.animations &&
      resolveAnimations(
        sheet.animations,
        frames.map((frame) => frame.name),
      );
    if (animations?.unknown.length) return fail(`animations name no frame of the sheet (${animations.unknown.join('; ')}): not packed`);
    // Each frame is read when the packer needs it (to measure it, and maybe again to draw it): the
    // lock records what the first read saw, and a file that changes in between fails the sheet.
    const packed = new Map<string, LockedFile>();
    const sources = frames.map((frame) => ({
      name: frame.name,
      ...(placedAt.has(frame.path) ? { placed: placedAt.get(frame.path) } : {}),
      read: async () => {
        const place = placeIn(run.root, frame.path);
        if (place.entry !== 'file') throw new PathRefusedError(`${frame.path} is not a regular file; a sheet reads no link or folder.`);
        const bytes = await readRegularFile(place.file, frame.path);
        const file = { path: frame.path, sha256: sha256(bytes), size: bytes.length };
        const first = packed.get(frame.path);
        if (!first) packed.set(frame.path, file);
        else if (first.sha256 !== file.sha256) throw new PathRefusedError(`${frame.path} changed while the sheet was being packed.`);
        return bytes;
      },
    }));
    const out = asset.out.type === 'file' ? asset.out.path : `${asset.id}.png`;
    const { planAtlas, atlasJson } = await import('../../imaging/atlas.js');
    // Options the manifest leaves out take the packer's defaults (an undefined would replace them).
    const { from: _from, animations: _animations, ...given } = sheet;
    const options = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
    const plan = await planAtlas(sources, { ...options, pages: true, animations: animations?.animations });
    const files = sheetFiles(out, plan.pages.length);
    // Every file claimed and checked before any is made: a sheet is never half written.
    const recorded = new Set((run.writer.entry(asset.id)?.files ?? []).map((file) => file.path));
    for (const file of files) {
      const refusal = run.claims.claim(file, asset.id);
      if (refusal) throw new PathRefusedError(refusal, 'Give the assets different outputs.');
      const place = placeToWrite(run.root, file);
      if (place.entry === 'file' && !recorded.has(file) && !item.replaces)
        throw new PathRefusedError(`${file} exists and assetgen did not make it: the sheet is left as it was (--force replaces it).`);
    }
    const name = (file: string) => path.posix.basename(file);
    if (plan.pages.length === 1) {
      made.push(await makeTempInside(run.root, files[0], plan.png(0)));
      made.push(await makeTempInside(run.root, files[1], atlasJson(plan.pageData(0, name(files[0])))));
    } else {
      const images = files.filter((file) => file.endsWith('.png'));
      const pageData = images.map((image) => image.replace(/\.png$/, '.json'));
      for (const [index, image] of images.entries()) {
        made.push(await makeTempInside(run.root, image, plan.png(index)));
        const related = pageData.filter((_, other) => other !== index).map(name);
        made.push(await makeTempInside(run.root, pageData[index], atlasJson(plan.pageData(index, name(image), related))));
      }
      made.push(await makeTempInside(run.root, files.at(-1)!, atlasJson(plan.multiAtlas(images.map(name)))));
    }
    for (const file of made) await moveIntoPlace(file.temp, file.target, true);
    // Files of an earlier pack that this one does not write again (the sheet's `out` moved, or its page count changed).
    for (const stale of item.files) if (stale.state === 'ok' && !files.includes(stale.path)) removeInside(run.root, stale.path);
    await run.writer.packed(item.id, {
      kind: 'sheet',
      spec: sheetSpecHash(sheet, inputs),
      files: made.map(({ path: file, sha256: hash, size }) => ({ path: file, sha256: hash, size })),
      inputs: frames.map((frame) => packed.get(frame.path)!),
      finishedAt: new Date().toISOString(),
    });
    return { id: item.id, outcome: 'built', files, credits: 0 };
  } catch (error) {
    for (const file of made) await discardTemp(file.temp);
    return fail(error instanceof Error ? error.message : String(error), 'failed', buildFailure(error));
  }
}

/**
 * What the sheet needs of its inputs' lock entries: each input's file paths, and where each trimmed
 * frame of a sliced input sat in its cell (the lock's `trims`, by file path: the packer keeps it
 * there). Read an entry at a time, never a copy of the whole lock, which would stay in memory
 * while the pages are made (a few MiB in a project of thousands of assets).
 */
function readInputs(run: AssetRun, inputs: readonly string[]): { pathsOf: Map<string, string[]>; placedAt: Map<string, TrimPlacement> } {
  const pathsOf = new Map<string, string[]>();
  const placedAt = new Map<string, TrimPlacement>();
  for (const id of inputs) {
    const entry = run.writer.entry(id);
    pathsOf.set(
      id,
      (entry?.files ?? []).map((file) => file.path),
    );
    entry?.trims?.forEach((trim, index) => placedAt.set(entry.files[index].path, trim));
  }
  return { pathsOf, placedAt };
}
