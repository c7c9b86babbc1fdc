// `assetgen skills update`: re-render every recorded copy with this version, command and base URL.
import type { CommandContext } from '../../cli/context.js';
import { planInstall } from '../../installer/install.js';
import { readManifest } from '../../installer/manifest.js';
import { recordedCopies } from '../../installer/status.js';
import { skillRoot } from '../../installer/targets.js';
import { command } from '../../cli/command.js';
import { carryOut, renderFor, shownAsItRan, type InstallResult } from './plan.js';

export interface UpdateOptions {
  force?: boolean;
  dryRun?: boolean;
  /** Skips the confirmation on a terminal. */
  yes?: boolean;
}

export const update = command({ run: updateSkill, render: shownAsItRan });

async function updateSkill(ctx: CommandContext, options: UpdateOptions): Promise<InstallResult> {
  const manifest = readManifest(ctx.env);
  // A copy whose folder is gone (a deleted project, a manual removal) is not recreated.
  const { present, gone } = recordedCopies(manifest);
  for (const target of gone) {
    ctx.out.info(`${skillRoot(target.skillsDir)} is gone: not recreated (\`assetgen skills uninstall\` forgets it).`);
  }
  if (!present.length) {
    ctx.out.info('Nothing to update: the skill is not installed. Run `assetgen install`.');
    return { action: 'update', dryRun: Boolean(options.dryRun), changed: false, targets: [], files: [] };
  }
  const plan = planInstall(present, renderFor(ctx), manifest, Boolean(options.force));
  return carryOut(
    ctx,
    plan,
    { action: 'update' },
    { dryRun: options.dryRun, confirm: ctx.interactive && !options.yes, upToDate: 'Everything is up to date.' },
  );
}
