// `assetgen check` (docs/check.md): every output image the lock records for the manifest's assets,
// read from disk and measured — alpha, the opaque bounding box and fill, colours (one place for
// those: imaging/take-metrics.ts), a tile's seam and a perceptual hash (imaging/check-metrics.ts) —
// then each member of a matrix or a sheet compared with the rest of its group, and every asset's
// `checks:` rules judged against its figures. No service call; prints nothing.
import path from 'node:path';
import fs from 'node:fs';
import { PathRefusedError, readRegularFile } from '../files/confine.js';
import { hammingDistance, HASH_BITS, perceptualHash, seamScore } from '../imaging/check-metrics.js';
import type { Rect } from '../imaging/raw.js';
import { IMAGE_LIMITS } from '../imaging/limits.js';
import { measureTake } from '../imaging/take-metrics.js';
import type { CheckRules, Lock, Manifest, ManifestAsset } from './records.js';
import { entryOf } from './lock-history.js';
import { sheetInputs } from './sheet.js';

/** The outputs check measures, by extension: the still images decodeImage reads. */
const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.gif']);
/** A file larger than an image within IMAGE_LIMITS could be, even uncompressed, is not read. */
const MAX_FILE_BYTES = IMAGE_LIMITS.maxPixels * 4 + 1024 * 1024;
/**
 * A member of a group whose hash is further than this from the others (the median of its
 * distances to each, in bits of HASH_BITS) is flagged as an outlier, unless its `outlier` rule
 * says otherwise. Recoloured or shifted versions of one drawing stay well under it; another drawing
 * lands near HASH_BITS / 2.
 */
export const OUTLIER_BITS = 16;
/** A group needs this many members to tell which one is unlike the rest (of two, neither is). */
export const MIN_GROUP = 3;

/** One output image, measured. */
export interface CheckedFile {
  /** The asset it belongs to, and its project path (forward slashes). */
  id: string;
  path: string;
  width: number;
  height: number;
  /** Some pixel is less than fully opaque. */
  alpha: boolean;
  /** The smallest rectangle holding every pixel that is not fully transparent; null when every pixel is. */
  bounds: Rect | null;
  /** That rectangle's share of the canvas, 0 to 1 (3 decimals). */
  fill: number;
  /** Distinct RGBA values, counted up to COLOUR_COUNT_CAP (`atLeast` past it). */
  colors: { count: number; atLeast: boolean };
  /** `tile: true` assets: the seam score, 0–255 (imaging/check-metrics.ts seamScore). */
  seam?: number;
  /** Members of a matrix or a sheet: the perceptual hash (16 hex digits). */
  hash?: string;
  /** Members of a group of MIN_GROUP or more: the median distance to the others, and whether it passes OUTLIER_BITS (or the asset's rule). */
  outlier?: { group: string; distance: number; members: number; flagged: boolean };
}

/** An output check could not measure: never built, gone, or not an image it can read. */
export interface UnmeasuredFile {
  id: string;
  /** null when the asset was never built (the lock records no file). */
  path: string | null;
  problem: string;
}

/** A rule an output breaks: the rule, its limit, the figure measured and one line saying so. */
export interface CheckFailure {
  id: string;
  path: string | null;
  rule: keyof CheckRules | 'output';
  figure: number | boolean | string | null;
  limit: string;
  message: string;
}

export interface CheckReport {
  /** The rules of each asset that has any (its own over defaults.checks), by id. */
  rules: Record<string, CheckRules>;
  files: CheckedFile[];
  unmeasured: UnmeasuredFile[];
  failures: CheckFailure[];
  totals: { assets: number; files: number; unmeasured: number; failures: number };
}

/**
 * Measures the output images of the manifest's assets (as the lock records them; `selected`: of
 * those ids only, each compared with its whole group) and judges their rules.
 */
export async function checkOutputs(manifest: Manifest, lock: Lock, selected?: ReadonlySet<string>): Promise<CheckReport> {
  const groups = groupsOf(manifest.assets);
  const grouped = new Set([...groups.values()].flat());
  // A selected member's figure is its distance to the whole group: the rest of the group is measured too.
  const peers = new Set(selected ? [...groups.values()].filter((ids) => ids.some((id) => selected.has(id))).flat() : []);
  const reported = (id: string): boolean => !selected || selected.has(id);
  const files: CheckedFile[] = [];
  const unmeasured: UnmeasuredFile[] = [];
  const checked = manifest.assets.filter((asset) => asset.kind !== 'video' && (reported(asset.id) || peers.has(asset.id)));
  for (const asset of checked) {
    const recorded = entryOf(lock, asset.id)?.files.map((file) => file.path) ?? [];
    const images = recorded.filter((file) => IMAGE_EXTENSIONS.has(path.posix.extname(file).toLowerCase()));
    if (!images.length)
      unmeasured.push({ id: asset.id, path: null, problem: recorded.length ? 'no image among its outputs' : 'not built' });
    for (const file of images) {
      const measured = await measureFile(manifest.root, file, { tile: asset.tile === true, hash: grouped.has(asset.id) });
      if ('problem' in measured) unmeasured.push({ id: asset.id, path: file, problem: measured.problem });
      else files.push({ id: asset.id, path: file, ...measured });
    }
  }
  const rulesOf = new Map(manifest.assets.map((asset) => [asset.id, asset.checks]));
  markOutliers(files, groups, (id) => rulesOf.get(id)?.outlier?.max ?? OUTLIER_BITS);
  return report(
    checked.filter((asset) => reported(asset.id)),
    files.filter((file) => reported(file.id)),
    unmeasured.filter((file) => reported(file.id)),
  );
}

/** The report of the assets shown: their rules, figures and failures. */
function report(assets: ManifestAsset[], files: CheckedFile[], unmeasured: UnmeasuredFile[]): CheckReport {
  // No prototype: an id is only ever a key.
  const rules = Object.create(null) as Record<string, CheckRules>;
  for (const asset of assets) if (asset.checks) rules[asset.id] = asset.checks;
  const failures = [
    ...files.flatMap((file) => judge(file, rules[file.id])),
    ...unmeasured.filter((file) => rules[file.id]).map(unmeasuredFailure),
  ];
  const totals = { assets: assets.length, files: files.length, unmeasured: unmeasured.length, failures: failures.length };
  return { rules, files, unmeasured, failures, totals };
}

type Figures = Omit<CheckedFile, 'id' | 'path'>;

async function measureFile(root: string, file: string, wanted: { tile: boolean; hash: boolean }): Promise<Figures | { problem: string }> {
  const absolute = path.resolve(root, ...file.split('/'));
  let bytes: Buffer;
  try {
    const entry = await fs.promises.lstat(absolute);
    // What is measured is what the project holds: a link (in or out of it) is not followed.
    if (entry.isSymbolicLink()) return { problem: 'a symbolic link (not followed)' };
    const size = entry.size;
    if (size > MAX_FILE_BYTES) return { problem: `larger (${size} bytes) than an image within the limits could be` };
    bytes = await readRegularFile(absolute, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A FIFO or a device is refused without being waited on (files/confine.ts).
    if (error instanceof PathRefusedError) return { problem: error.message };
    return { problem: code === 'ENOENT' ? 'missing' : code ? `cannot be read (${code})` : (error as Error).message };
  }
  try {
    const { metrics, image } = await measureTake(bytes, file);
    return {
      width: metrics.width,
      height: metrics.height,
      alpha: metrics.transparency,
      bounds: metrics.opaqueBounds,
      fill: metrics.fill,
      colors: metrics.colours,
      ...(wanted.tile ? { seam: seamScore(image) } : {}),
      ...(wanted.hash ? { hash: perceptualHash(image) } : {}),
    };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/**
 * The groups whose members are compared, by name: each matrix entry's assets (`matrix potion-${color}`)
 * and each sheet's inputs (`sheet icons`), in the manifest's order.
 */
export function groupsOf(assets: readonly ManifestAsset[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const asset of assets) {
    if (asset.matrix === undefined) continue;
    const name = `matrix ${asset.matrix}`;
    groups.set(name, [...(groups.get(name) ?? []), asset.id]);
  }
  for (const asset of assets) if (asset.sheet) groups.set(`sheet ${asset.id}`, sheetInputs(asset.sheet.from, assets));
  return groups;
}

/**
 * Each hashed file's distance to its group: the median of its Hamming distances to every other
 * member's file (a median, so that one outlier does not pull the others out with it). A file in
 * several groups keeps the largest. Groups of fewer than MIN_GROUP files are not judged.
 */
function markOutliers(files: CheckedFile[], groups: Map<string, string[]>, limitOf: (id: string) => number): void {
  for (const [group, ids] of groups) {
    const members = new Set(ids);
    const hashed = files.filter((file) => file.hash !== undefined && members.has(file.id));
    if (hashed.length < MIN_GROUP) continue;
    for (const file of hashed) {
      const distances = hashed.filter((other) => other !== file).map((other) => hammingDistance(file.hash!, other.hash!));
      const distance = median(distances);
      if (file.outlier && file.outlier.distance >= distance) continue;
      file.outlier = { group, distance, members: hashed.length, flagged: distance > limitOf(file.id) };
    }
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The rules one measured file breaks. A seam or outlier rule on a file without that figure (not a tile, no group) has nothing to judge. */
function judge(file: CheckedFile, rules: CheckRules | undefined): CheckFailure[] {
  if (!rules) return [];
  const failures: CheckFailure[] = [];
  const fail = (rule: CheckFailure['rule'], figure: CheckFailure['figure'], limit: string, words: string): void => {
    failures.push({ id: file.id, path: file.path, rule, figure, limit, message: `${file.path} (${file.id}): ${words}` });
  };
  if (rules.alpha === 'required' && !file.alpha) fail('alpha', false, 'required', 'alpha required, but every pixel is opaque');
  if (rules.alpha === 'forbidden' && file.alpha) fail('alpha', true, 'forbidden', 'alpha forbidden, but some pixels are transparent');
  const { min, max } = rules.fill ?? {};
  if (min !== undefined && file.fill < min) fail('fill', file.fill, `min ${min}`, `fill ${file.fill} is below the min of ${min}`);
  if (max !== undefined && file.fill > max) fail('fill', file.fill, `max ${max}`, `fill ${file.fill} is above the max of ${max}`);
  const colours = file.colors;
  if (rules.colors && (colours.atLeast || colours.count > rules.colors.max)) {
    const count = `${colours.atLeast ? 'more than ' : ''}${colours.count}`;
    fail('colors', colours.count, `max ${rules.colors.max}`, `${count} colours, above the max of ${rules.colors.max}`);
  }
  if (rules.seam && file.seam !== undefined && file.seam > rules.seam.max)
    fail('seam', file.seam, `max ${rules.seam.max}`, `seam ${file.seam} is above the max of ${rules.seam.max}`);
  const outlier = file.outlier;
  if (rules.outlier && outlier?.flagged)
    fail(
      'outlier',
      outlier.distance,
      `max ${rules.outlier.max}`,
      `outlier in ${outlier.group}: ${outlier.distance} of ${HASH_BITS} bits from the others, above the max of ${rules.outlier.max}`,
    );
  return failures;
}

/** An asset with rules whose output cannot be measured fails: a gate that cannot look does not pass. */
function unmeasuredFailure(file: UnmeasuredFile): CheckFailure {
  return {
    id: file.id,
    path: file.path,
    rule: 'output',
    figure: null,
    limit: 'measured',
    message: `${file.path ? `${file.path} (${file.id})` : file.id}: ${file.problem}, so its checks cannot pass`,
  };
}
