// `assetgen pick <id> <k>`: the asset's output becomes its take k (docs/build.md "Takes: variants,
// pick, more"). No service call: the take is on disk, its post steps run on it again (free), and the
// lock records the choice, so every later build, sheet and checkout uses it.
import fs from 'node:fs';
import path from 'node:path';
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { displayPath } from '../../cli/save.js';
import { loadManifest, locateManifest } from '../../pipeline/manifest.js';
import { lockFileFor, readLock } from '../../pipeline/lock.js';
import { OutputClaims } from '../../pipeline/owners.js';
import type { LockedFile } from '../../pipeline/records.js';
import { sheetInputs } from '../../pipeline/sheet.js';
import { pickedTake, takeList, takeOf } from '../../pipeline/takes.js';
import { checkFiles } from '../../pipeline/plan.js';
import { hashFiles } from '../../pipeline/hash.js';
import { LockWriter } from '../../pipeline/writer.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { processOriginal } from './post.js';
import { noTakes } from './takes.js';

export interface PickResult {
  manifest: string;
  lock: string;
  id: string;
  /** The take the output was made from before, and now. */
  from: number;
  picked: number;
  /** The take's file, the output before and after (path, sha256, size each). */
  take: string;
  before: LockedFile[];
  after: LockedFile[];
  /** Sheets that pack this asset: stale until the next build packs them (free). */
  staleSheets: string[];
  /** Always 0: a pick is no service call. */
  credits: 0;
}

export const pick = command({ run: pickTake, render: renderPick });

async function pickTake(ctx: CommandContext, id: string, number: string, options: { file?: string }): Promise<PickResult> {
  const file = locateManifest(ctx.cwd, options.file, ctx.frontEnd.otherManifest);
  const manifest = loadManifest(file, ctx.cwd, undefined, { budgetIs: ctx.frontEnd.budgetIs });
  const asset = manifest.assets.find((one) => one.id === id);
  if (!asset) throw noTakes(ctx.frontEnd, id, readLock(lockFileFor(file)), false);
  const k = /^[1-9][0-9]{0,5}$/.test(number) ? Number(number) : undefined;
  const writer = LockWriter.open(lockFileFor(file));
  try {
    const entry = writer.lock.assets[id];
    const takes = entry?.candidates?.map((one) => one.k) ?? [];
    if (!takes.length)
      throw new UsageError(
        `"${id}" has no takes to pick from.`,
        `Give it \`variants: N\` in ${displayPath(ctx, file)} and build it, or ask for more with ${ctx.frontEnd.build({ ids: [id], more: 2 })}.`,
      );
    const take = k === undefined ? undefined : takeOf(entry, k);
    if (!take)
      throw new UsageError(`"${id}" has no take ${sanitizeLine(number)}: its takes are ${takeList(takes).replace(/^takes? /, '')}.`);
    if (entry.job)
      throw new UsageError(`"${id}" has a paid call in flight: build it first (${ctx.frontEnd.build({ ids: [id] })}), then pick.`);
    // The take as the lock records it: a file changed since is never used.
    const [state] = checkFiles(
      { ...entry, files: [{ path: take.file, sha256: take.sha256, size: take.size }] },
      await hashFiles(manifest.root, [take.file]),
    );
    if (state.state !== 'ok')
      throw new UsageError(
        `Take ${take.k} of "${id}" (${take.file}) is ${state.state === 'missing' ? 'missing' : 'changed since assetgen wrote it'}: not used, nothing changed.`,
        `Pick another of ${takeList(takes)}, or make it again (paid): ${ctx.frontEnd.regenerate(id)}.`,
      );
    const claims = new OutputClaims(writer.lock, (lockPath) => fs.existsSync(path.join(manifest.root, lockPath)));
    const previous = checkFiles(
      entry,
      await hashFiles(
        manifest.root,
        entry.files.map((one) => one.path),
      ),
    )
      .filter((one) => one.state === 'ok')
      .map((one) => one.path);
    const processed = await processOriginal(manifest.root, asset, take.file, { claims, previous, expected: take });
    await writer.picked(id, take.k, processed);
    const staleSheets = manifest.assets
      .filter((one) => one.kind === 'sheet' && one.sheet && sheetInputs(one.sheet.from, manifest.assets).includes(id))
      .map((one) => one.id);
    return {
      manifest: file,
      lock: writer.file,
      id,
      from: pickedTake(entry),
      picked: take.k,
      take: take.file,
      before: entry.files,
      after: processed.files,
      staleSheets,
      credits: 0,
    };
  } finally {
    await writer.close();
  }
}

function renderPick(ctx: CommandContext, result: PickResult): void {
  const { id, from, picked, before, after, staleSheets } = result;
  for (const file of after) ctx.out.result(file.path);
  const was = (file: LockedFile | undefined): string => (file ? `${file.sha256.slice(0, 12)} ${file.size} B` : 'none');
  ctx.out.info(`${sanitizeLine(id)}: take ${from} → take ${picked} (no service call, 0 credits).`);
  for (const file of after) {
    const old = before.find((one) => one.path === file.path) ?? before[0];
    ctx.out.info(`  ${sanitizeLine(file.path)}: ${was(old)} → ${was(file)}`);
  }
  for (const sheet of staleSheets)
    ctx.out.info(
      `Sheet "${sanitizeLine(sheet)}" packs ${sanitizeLine(id)}: stale until the next build packs it (free): ${ctx.frontEnd.build({ ids: [sanitizeLine(sheet)] })}`,
    );
}
