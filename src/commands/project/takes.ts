// `assetgen takes <id>`: an asset's takes as the lock records them (number, file, size, credits,
// which is picked, the numbers beside each: pipeline/takes.ts), and its contact sheet written as a
// PNG with its layout beside it (imaging/contact-sheet.ts), for agents that read files and for
// people. Local only: no service call, no credentials.
import fs from 'node:fs';
import path from 'node:path';
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import type { FrontEnd } from '../../cli/front-end.js';
import { UsageError } from '../../cli/errors.js';
import { displayPath, outputRoot } from '../../cli/save.js';
import { openRegularSync, placeToWrite, writeFileInside } from '../../files/confine.js';
import { mediaInfo } from '../../files/media-info.js';
import { describeMetrics } from '../../imaging/take-metrics.js';
import { lockFileFor, readLock } from '../../pipeline/lock.js';
import { loadManifest, locateManifest } from '../../pipeline/manifest.js';
import type { Lock } from '../../pipeline/records.js';
import { shellQuote } from '../../cli/resume.js';
import { contactSheetOf, lookAtTakes, takesOf } from '../../pipeline/take-review.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { printTable } from '../../cli/table.js';

/** Where the contact sheet goes without --contact-sheet: under the project's own folder, by asset id. */
export const contactSheetPath = (id: string): string => `.assetgen/takes/${id}.png`;

/** The command that makes take k the asset's output, runnable as printed: for this listing, the contact sheet's layout and the gallery's cards. */
export function pickCommand(id: string, k: number | '<k>'): string {
  return `${['assetgen', 'pick', id].map(shellQuote).join(' ')} ${k}`;
}

export interface TakesOptions {
  file?: string;
  contactSheet?: string;
  /** Replace a --contact-sheet file (or its layout) that assetgen did not write. */
  force?: boolean;
}

export const takes = command({ run: listTakes, render: renderTakes });

type TakesResult = Awaited<ReturnType<typeof listTakes>>;

async function listTakes(ctx: CommandContext, id: string, options: TakesOptions) {
  const manifestFile = locateManifest(ctx.cwd, options.file, ctx.frontEnd.otherManifest);
  const { root, assets } = loadManifest(manifestFile, ctx.cwd, undefined, { budgetIs: ctx.frontEnd.budgetIs });
  const lock = readLock(lockFileFor(manifestFile));
  const custom = options.contactSheet?.trim();
  if (custom !== undefined && !/\.png$/i.test(custom))
    throw new UsageError(`--contact-sheet ${custom}: the contact sheet is a PNG; give a path ending in .png.`);
  const entry = Object.hasOwn(lock.assets, id) ? lock.assets[id] : undefined;
  if (!takesOf(entry).length)
    throw noTakes(
      ctx.frontEnd,
      id,
      lock,
      assets.some((asset) => asset.id === id),
    );

  // The default goes under the project (its root is the confinement root); a path the user names, under its folder.
  const target = custom !== undefined ? path.resolve(ctx.cwd, custom) : path.join(root, ...contactSheetPath(id).split('/'));
  const layoutFile = target.replace(/\.png$/i, '.json');
  const within = custom !== undefined ? outputRoot(ctx, target) : root;
  // The default place is assetgen's own (replaced every time); a path the user names may hold their files.
  if (custom !== undefined && !options.force) refuseForeignSheet(ctx, within, target, layoutFile);

  const looked = await lookAtTakes(root, id, entry, { pixels: true });
  const { png, layout } = await contactSheetOf(id, looked);
  await writeFileInside(within, target, png, displayPath(ctx, target));
  await writeFileInside(
    within,
    layoutFile,
    `${JSON.stringify({ ...layout, image: path.basename(target), pick: pickCommand(id, '<k>') }, null, 2)}\n`,
    displayPath(ctx, layoutFile),
  );

  const picked = looked.find((take) => take.picked)?.k ?? null;
  return {
    id,
    manifest: manifestFile,
    picked,
    takes: looked.map(({ bytes: _bytes, image: _image, ...take }) => ({ ...take, pick: pickCommand(id, take.k) })),
    contactSheet: {
      file: target,
      layout: layoutFile,
      width: layout.width,
      height: layout.height,
      bytes: png.length,
      omitted: layout.omitted,
    },
  };
}

/** The largest layout file read to tell whether assetgen wrote it (its own are a few KB). */
const LAYOUT_READ_LIMIT = 1024 * 1024;

/**
 * Refuses (exit 2, before anything is written) a contact sheet or layout file at a path the user
 * named that assetgen did not write. Ours is recognised by the layout: a JSON object with the
 * fields assetgen writes (`asset`, `image` naming this PNG, `pick`, `width`, `height`, `takes`),
 * and the PNG beside it a PNG of the size that layout records. A PNG without such a layout beside
 * it is not known to be ours, so it is refused too. Links and other kinds of files are refused by
 * the write itself (files/confine.ts).
 */
function refuseForeignSheet(ctx: CommandContext, root: string, target: string, layoutFile: string): void {
  const sheetThere = placeToWrite(root, target, displayPath(ctx, target)).entry === 'file';
  const layoutThere = placeToWrite(root, layoutFile, displayPath(ctx, layoutFile)).entry === 'file';
  if (!sheetThere && !layoutThere) return;
  const layout = layoutThere ? ownLayout(layoutFile, path.basename(target)) : undefined;
  const foreign = [
    ...(sheetThere && !(layout && isSheetOfSize(target, layout)) ? [target] : []),
    ...(layoutThere && !layout ? [layoutFile] : []),
  ].map((file) => displayPath(ctx, file));
  if (!foreign.length) return;
  const named = foreign.join(' and ');
  throw new UsageError(
    sanitizeLine(
      `${named} already ${foreign.length === 1 ? 'exists' : 'exist'} and assetgen did not write ${foreign.length === 1 ? 'it' : 'them'}: ` +
        `--contact-sheet ${displayPath(ctx, target)} writes the sheet there and its layout as ${displayPath(ctx, layoutFile)}.`,
    ),
    sanitizeLine(
      `Pass ${ctx.frontEnd.option('force')} to replace ${foreign.length === 1 ? 'it' : 'them'}, or choose another path with --contact-sheet <file.png>.`,
    ),
  );
}

/** The layout assetgen wrote for the sheet named `image`: its recorded size; undefined when the file is anything else. */
function ownLayout(file: string, image: string): { width: number; height: number } | undefined {
  let fd: number | undefined;
  try {
    const opened = openRegularSync(file);
    fd = opened.fd;
    if (opened.stat.size > LAYOUT_READ_LIMIT) return undefined;
    const bytes = Buffer.alloc(opened.stat.size);
    const read = fs.readSync(fd, bytes, 0, bytes.length, 0);
    const parsed: unknown = JSON.parse(bytes.subarray(0, read).toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const layout = parsed as Record<string, unknown>;
    const size = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0;
    const ours =
      typeof layout.asset === 'string' &&
      layout.image === image &&
      typeof layout.pick === 'string' &&
      layout.pick.startsWith('assetgen pick ') &&
      Array.isArray(layout.takes) &&
      size(layout.width) &&
      size(layout.height);
    return ours ? { width: layout.width as number, height: layout.height as number } : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Whether `file` is a PNG of the size its layout records (the sheet that layout describes). */
function isSheetOfSize(file: string, size: { width: number; height: number }): boolean {
  const info = mediaInfo(file);
  return info.format === 'png' && info.width === size.width && info.height === size.height;
}

/** A usage error naming the assets that have takes (at most a few), and how an asset gets some (also `pick`'s). */
export function noTakes(words: FrontEnd, id: string, lock: Lock, inManifest: boolean): UsageError {
  const shown = JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
  const withTakes = Object.keys(lock.assets)
    .filter((other) => takesOf(lock.assets[other]).length > 0)
    .sort();
  const listed = withTakes.length > 20 ? `${withTakes.slice(0, 20).join(', ')} and ${withTakes.length - 20} more` : withTakes.join(', ');
  const known = Object.hasOwn(lock.assets, id) || inManifest;
  const what = known
    ? `${shown} has no takes in assetgen.lock${Object.hasOwn(lock.assets, id) ? ' (it was built as a single take)' : ' (not built yet)'}`
    : `No asset ${shown} in assetgen.yaml or assetgen.lock`;
  return new UsageError(
    sanitizeLine(`${what}. Assets with takes: ${listed || 'none yet'}.`),
    `An image asset gets takes from \`variants: N\` in assetgen.yaml, then ${words.build({ ids: ['<id>'] })}.`,
  );
}

async function renderTakes(ctx: CommandContext, result: TakesResult): Promise<void> {
  // The --json document says all of it (as for build, jobs and agents): no summary beside it on stderr.
  if (ctx.out.json) return;
  const rows = result.takes.map((take) => [
    `${take.k}${take.picked ? '*' : ''}`,
    displayPath(ctx, path.join(path.dirname(result.manifest), ...take.file.split('/'))),
    String(take.size),
    take.credits === null ? '-' : String(take.credits),
    take.metrics ? describeMetrics(take.metrics) : `${take.state}: ${take.problem ?? ''}`,
  ]);
  await printTable(
    ctx,
    ['TAKE', 'FILE', 'BYTES', 'CREDITS', 'LOOKS'],
    rows.map((row) => row.map((cell) => sanitizeLine(cell))),
  );
  const { contactSheet } = result;
  const picked = result.picked === null ? 'none picked' : `take ${result.picked} picked (* above; green frame on the sheet)`;
  ctx.out.info(
    sanitizeLine(
      `${result.id}: ${result.takes.length} take${result.takes.length === 1 ? '' : 's'}, ${picked}. Another: ${pickCommand(result.id, '<k>')} (free).`,
    ),
  );
  ctx.out.info(
    sanitizeLine(
      `Contact sheet: ${displayPath(ctx, contactSheet.file)} (${contactSheet.width}×${contactSheet.height}, ${contactSheet.bytes} bytes; layout ${displayPath(ctx, contactSheet.layout)})` +
        (contactSheet.omitted.length ? `; takes ${contactSheet.omitted.join(', ')} not drawn (too many for one sheet).` : '.'),
    ),
  );
}
