// `assetgen demo`: the guided tour. Everything runs against an in-process bundled mock on loopback,
// through the same command code a real run uses, so what the tour shows is what the tool does.
import path from 'node:path';
import { VIDEO_JOB_COST } from '../api/endpoints.js';
import { runAndPresent } from '../cli/command.js';
import type { CommandContext } from '../cli/context.js';
import { UsageError } from '../cli/errors.js';
import { generate } from './generate.js';
import { create as createVideo } from './video.js';
import { runWorkflow } from './workflows.js';

export async function demo(ctx: CommandContext, options: { dir: string; force?: boolean }): Promise<void> {
  // The tour is for a person (its results are the saved paths on stdout): a script asking for
  // --json's one document is told so, not handed path lines it would fail to parse.
  if (ctx.globals.json)
    throw new UsageError(
      'assetgen demo is a tour for a person and has no --json; its commands take it, e.g. `assetgen generate "rusty sword icon" --agent sprite-artist --mock --json`.',
    );
  // Each step is its own command run (its own credit tally: "Charged …" is that step's cost), all on one mock.
  const newStep = (): CommandContext => ctx.derive({ mock: true, json: false });
  const tour = newStep();
  const dir = path.resolve(ctx.cwd, options.dir);
  const out = tour.out;
  const step = (n: number, title: string): void => out.info(`\n${out.style.bold(`${n}/4 ${title}`)}`);
  await tour.mockService();
  out.info(`Files go to ${dir}. Nothing here costs real credits.`);

  step(1, 'An image: assetgen generate "rusty sword icon" --agent sprite-artist');
  await runAndPresent(newStep(), generate, 'rusty sword icon, 32x32 pixel art', {
    agent: 'sprite-artist',
    output: `${dir}${path.sep}`,
    force: options.force,
  });

  step(2, 'A workflow, node by node: assetgen workflows run wf_sprite_sheet --set character=…');
  await runAndPresent(newStep(), runWorkflow, 'wf_sprite_sheet', {
    set: ['character=a dwarf miner with a lantern'],
    wait: true,
    output: dir,
    force: options.force,
  });

  step(3, `A video job (${VIDEO_JOB_COST} credits on a real account, refunded if it fails): assetgen video create …`);
  await runAndPresent(newStep(), createVideo, 'torch flickering on a dungeon wall', {
    yes: true,
    wait: true,
    output: `${dir}${path.sep}`,
    force: options.force,
  });

  step(4, 'Streaming progress events: assetgen generate … --stream');
  await runAndPresent(newStep(), generate, 'mossy stone floor tile', {
    agent: 'tile-smith',
    stream: true,
    output: `${dir}${path.sep}`,
    force: options.force,
  });

  out.info(`\nDone. Next: point assetgen at the real service with \`assetgen auth login --base-url <url>\`,`);
  out.info('or let your coding agent use it: `assetgen install` (`npx --no-install assetgen install` for a project install).');
}
