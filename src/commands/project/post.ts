// Post-processing in a build (docs/build.md "Post-processing"): the generated original kept under
// .assetgen/originals/<id>/, the asset's `post` steps run on it (src/imaging: sharp is loaded here,
// on first use, and only by a build that has steps to run), the result written as the output. Every
// path written or deleted goes through the confinement rule (src/files/confine.ts).
import { fileIdentity, PathRefusedError, placeIn, readRegularFile, removeInside, writeFileInside } from '../../files/confine.js';
import { LocalFileError } from '../../config/errors.js';
import { sha256 } from '../../pipeline/hash.js';
import type { FileHash, TrimPlacement, LockedFile, ManifestAsset, PlanItem } from '../../pipeline/records.js';
import type { TrimRecord } from '../../imaging/post.js';
import { slices } from '../../imaging/post-steps.js';
import type { OutputClaims } from '../../pipeline/owners.js';
import { originalPath, outputPathsFor, postHash } from '../../pipeline/post.js';
import { isTakeFile } from '../../pipeline/takes.js';
import type { Processed } from '../../pipeline/writer.js';
import type { AssetRun, ItemResult } from './records.js';
import { buildFailure } from '../../pipeline/errors.js';

export interface ProcessedFiles extends Processed {
  files: LockedFile[];
  /** What the steps said of the image, though it was made: a key that left it (almost) opaque (imaging/edges.ts keyWarning). */
  warnings?: string[];
}

/**
 * Keeps `source` (a project path: the download, or an output made before `post` was added) as the
 * asset's original, runs the steps on it and writes the output (or a `slice`'s frames); files of
 * the asset's last finish that this one does not write again (`previous`, unchanged since) are removed. With no steps (they
 * were removed from the manifest), the output is the original itself and no original is kept.
 * `expected`: the source's hash as recorded (the lock's, or the download's); other bytes are never used.
 */
export async function processOriginal(
  root: string,
  asset: ManifestAsset,
  source: string,
  options: { claims: OutputClaims; previous: readonly string[]; expected: FileHash | undefined },
): Promise<ProcessedFiles> {
  const from = placeIn(root, source);
  if (from.entry !== 'file')
    throw new PathRefusedError(`${source} is not a regular file; assetgen reads no link or folder as an original.`);
  const bytes = await readRegularFile(from.file, source);
  const hash = sha256(bytes);
  // Its size kept apart: the bytes are not held past the steps (a large image's steps need the memory).
  const size = bytes.length;
  const { expected } = options;
  // Changed since the plan judged it intact (by hand, or a damaged disk): building again, the plan leaves it alone.
  if (!expected || expected.sha256 !== hash || expected.size !== size)
    throw new LocalFileError(
      from.path,
      `${source} is not the file assetgen.lock records (changed since the plan checked it): not used, nothing written.`,
      'Build again: the plan then leaves the asset alone and says why.',
    );
  // A take (pipeline/takes.ts) is its own kept original: the steps run on it where it is.
  const take = isTakeFile(asset.id, source);
  const kept = take ? source : originalPath(asset.id, source);
  if (kept !== source) await writeFileInside(root, kept, bytes);
  const results = asset.post
    ? await (await import('../../imaging/post.js')).applyPostStepsToFrames(bytes, asset.post, source)
    : [{ bytes, trim: undefined }];
  // One output, or with a `slice` step one per frame (`<stem>-<n>`), each claimed before any is written.
  const outputs = outputPathsFor(asset, kept, results.length);
  for (const output of outputs) {
    const refusal = options.claims.claim(output, asset.id);
    if (refusal) throw new PathRefusedError(refusal, 'Give the assets different outputs.');
  }
  const files: LockedFile[] = [];
  for (const [index, output] of outputs.entries()) {
    const written = results[index].bytes;
    await writeFileInside(root, output, written);
    files.push({ path: output, sha256: sha256(written), size: written.length });
  }
  // Files of the last finish not written again: an output in another format, frames past the new count.
  // Never one of the files just written under another name (a linked folder, a disk that ignores case).
  const written = new Set(outputs.map((output) => fileIdentity(root, output)));
  for (const stale of options.previous)
    if (!outputs.includes(stale) && stale !== kept && !written.has(fileIdentity(root, stale))) removeInside(root, stale);
  if (!asset.post) {
    if (!take) removeInside(root, kept);
    return { files };
  }
  // Where a trimmed picture was, named as TexturePacker's spriteSourceSize is (x, y): the lock's, the
  // sidecar's and --json's; per frame (`trims`) after a slice, so a sheet packs the frames aligned.
  const sliced = slices(asset.post);
  const trims = sliced && results.every((result) => result.trim) ? results.map((result) => frameTrim(result.trim!)) : undefined;
  const trim = !sliced && results[0]?.trim ? frameTrim(results[0].trim) : undefined;
  // Said once: every frame of a slice carries its image's warnings.
  const warnings = (results as { warnings?: string[] }[])[0]?.warnings;
  return {
    files,
    original: { path: kept, sha256: hash, size },
    post: postHash(asset.post),
    ...(trim ? { trim } : {}),
    ...(trims ? { trims } : {}),
    ...(warnings ? { warnings } : {}),
  };
}

/** A trim record as the lock keeps a frame's (pipeline/records.ts TrimPlacement). */
const frameTrim = (trim: TrimRecord): TrimPlacement => ({
  x: trim.left,
  y: trim.top,
  width: trim.width,
  height: trim.height,
  sourceWidth: trim.sourceWidth,
  sourceHeight: trim.sourceHeight,
});

/** The plan's `reprocess`: the steps run again from the kept original; no paid call, nothing charged. */
export async function reprocessAsset(run: AssetRun, item: PlanItem): Promise<ItemResult> {
  try {
    const previous = item.files.filter((file) => file.state === 'ok').map((file) => file.path);
    // The bytes the plan judged intact: the kept original, or the output it becomes.
    const entry = run.writer.entry(item.id);
    const take = entry?.candidates?.find((one) => one.file === item.source);
    const expected = take
      ? { sha256: take.sha256, size: take.size }
      : (entry?.original ?? entry?.files.find((file) => file.path === item.source));
    const processed = await processOriginal(run.root, item.asset!, item.source!, { claims: run.claims, previous, expected });
    await run.writer.reprocessed(item.id, processed);
    const warnings = processed.warnings ? { warnings: processed.warnings } : {};
    return { id: item.id, outcome: 'built', files: processed.files.map((file) => file.path), credits: 0, ...warnings };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { id: item.id, outcome: 'failed', files: [], credits: 0, reason, error: buildFailure(error) };
  }
}
