// `assetgen init`: writes a commented starter assetgen.yaml, never over an existing one.
import fs from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { displayPath } from '../../cli/save.js';
import { findManifest, MANIFEST_FILE } from '../../pipeline/manifest.js';

export const STARTER = new URL('../../../templates/assetgen.yaml', import.meta.url);

export async function init(ctx: CommandContext, options: { file?: string }): Promise<void> {
  const target = path.resolve(ctx.cwd, options.file ?? MANIFEST_FILE);
  const shown = displayPath(ctx, target);
  if (fs.existsSync(target))
    throw new UsageError(
      `${shown} already exists; assetgen init never replaces it.`,
      'Edit it, or pass -f <path> to write a new one elsewhere.',
    );
  // A manifest further up would have been used from here until now: say that this one takes over.
  const outer = findManifest(path.dirname(path.dirname(target)));
  const starter = fs.readFileSync(STARTER, 'utf8');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  try {
    fs.writeFileSync(target, starter, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UsageError(`${shown} already exists; assetgen init never replaces it.`);
    throw error;
  }
  ctx.out.result(shown);
  ctx.out.document({ manifest: target, created: true });
  if (outer)
    ctx.out.info(
      `Note: ${displayPath(ctx, outer)} is further up; commands run under ${displayPath(ctx, path.dirname(target))} now use the new one.`,
    );
  ctx.out.info('Next: list your assets in it, then `assetgen build --dry-run` shows the plan and its cost.');
}
