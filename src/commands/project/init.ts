// `assetgen init`: writes a commented starter assetgen.yaml, never over an existing one.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { displayPath } from '../../cli/save.js';
import { createFileInsideSync, readRegularFileSync } from '../../files/confine.js';
import { findManifest, MANIFEST_FILE } from '../../pipeline/manifest.js';

export const STARTER = new URL('../../../templates/assetgen.yaml', import.meta.url);

export const init = command({ run: writeStarter, render: renderInit });

async function writeStarter(ctx: CommandContext, options: { file?: string }) {
  const target = path.resolve(ctx.cwd, options.file ?? MANIFEST_FILE);
  const shown = displayPath(ctx, target);
  if (fs.existsSync(target))
    throw new UsageError(
      `${shown} already exists; assetgen init never replaces it.`,
      'Edit it, or pass -f <path> to write a new one elsewhere.',
    );
  // A manifest further up would have been used from here until now: say that this one takes over.
  const outer = findManifest(path.dirname(path.dirname(target)));
  const starter = readRegularFileSync(fileURLToPath(STARTER), undefined, 'utf8');
  // By the confinement rule, in the folder the user named (or the current one): never through a
  // link, never over anything already there.
  if (!createFileInsideSync(path.dirname(target), target, starter, shown))
    throw new UsageError(`${shown} already exists; assetgen init never replaces it.`);
  if (outer)
    ctx.out.info(
      `Note: ${displayPath(ctx, outer)} is further up; commands run under ${displayPath(ctx, path.dirname(target))} now use the new one.`,
    );
  return { manifest: target, created: true as const };
}

function renderInit(ctx: CommandContext, result: { manifest: string }): void {
  ctx.out.result(displayPath(ctx, result.manifest));
  ctx.out.info('Next: list your assets in it, then `assetgen build --dry-run` shows the plan and its cost.');
}
