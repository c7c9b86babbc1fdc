// `assetgen lock merge <files…>`: joins the locks of a sharded build into the project's
// assetgen.lock (next to the manifest). Deterministic: the same locks in any order give the same
// bytes; two shards that recorded different results for one asset are a conflict naming it, and a
// shard's change to an asset whose entry here has moved on since that shard started is stale, an
// error too (pipeline/merge.ts): never a rollback to an older result.
import fs from 'node:fs';
import path from 'node:path';
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { displayPath } from '../../cli/save.js';
import { lockFileFor, readLockOut, serializeLock } from '../../pipeline/lock.js';
import { journalFileFor } from '../../pipeline/lock-journal.js';
import type { Lock } from '../../pipeline/records.js';
import { locateManifest } from '../../pipeline/manifest.js';
import { mergeLocks } from '../../pipeline/merge.js';
import { LockWriter } from '../../pipeline/writer.js';

export const merge = command({ run: mergeLockFiles, render: renderMerge });

async function mergeLockFiles(ctx: CommandContext, files: string[], options: { file?: string }) {
  const target = lockFileFor(locateManifest(ctx.cwd, options.file, ctx.frontEnd.otherManifest));
  // The project's lock is the common base, not a shard: listing it as one changes nothing. It is
  // claimed while merging, so a build running here cannot interleave its writes.
  const writer = LockWriter.open(target);
  let merged: Lock;
  let changed: boolean;
  try {
    const base = writer.lock;
    // Each shard as its next build would see it: its journal replayed (a run killed after it wrote
    // its lock), or, for one killed before, its journal over the project's lock.
    const shards = files.map((file) => {
      const resolved = path.resolve(ctx.cwd, file);
      const lock = resolved === target ? base : readLockOut(resolved, () => base, 'merge');
      if (!lock) throw new UsageError(`Cannot read ${file}: no such file (nor its journal, ${path.basename(journalFileFor(resolved))}).`);
      return { file, resolved, lock };
    });
    merged = mergeLocks(
      base,
      shards.filter((shard) => shard.resolved !== target),
    );
    changed = !fs.existsSync(target) || serializeLock(merged) !== serializeLock(base);
    if (changed) await writer.replace(merged);
  } finally {
    await writer.close();
  }
  return { lock: target, assets: Object.keys(merged.assets).length, changed, merged: files };
}

function renderMerge(ctx: CommandContext, result: Awaited<ReturnType<typeof mergeLockFiles>>): void {
  const { lock, assets, changed, merged } = result;
  ctx.out.result(displayPath(ctx, lock));
  ctx.out.info(
    `${changed ? 'Wrote' : 'Unchanged:'} ${displayPath(ctx, lock)} (${assets} asset${assets === 1 ? '' : 's'} from ${merged.length} lock${merged.length === 1 ? '' : 's'}).`,
  );
}
