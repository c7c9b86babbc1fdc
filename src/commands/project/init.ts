// `assetgen init [--engine <engine>]`: sets a project up — the commented starter assetgen.yaml
// (never over an existing one), the .gitignore lines docs/build.md asks for, and with --engine the
// engine's project-level defaults for pixel art (src/engines). Every change is shown as a diff
// first; an engine's changes are asked for on a terminal, and without one a change to a file that
// is already there takes --yes. Never a per-file .meta or .import file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { confirmOrCancel } from '../../cli/prompt.js';
import { shellQuote } from '../../cli/resume.js';
import { displayPath } from '../../cli/save.js';
import { readRegularFileSync } from '../../files/confine.js';
import { GITIGNORE, ignoredLines } from '../../engines/gitignore.js';
import {
  applyChanges,
  changesSomething,
  createChange,
  engineSetup,
  gitignoreChange,
  type Engine,
  type EngineSetup,
  type PlannedChange,
} from '../../engines/setup.js';
import { renderDiff } from '../../engines/text-edit.js';
import { findManifest, loadManifest, MANIFEST_FILE, parseManifest } from '../../pipeline/manifest.js';
import type { SidecarPlace } from '../../pipeline/records.js';
import { describePlace, PROVENANCE_DIR } from '../../pipeline/sidecar-place.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { DEFAULT_REPORT } from './gallery.js';

export const STARTER = new URL('../../../templates/assetgen.yaml', import.meta.url);

export interface InitOptions {
  file?: string;
  engine?: Engine;
  yes?: boolean;
  dryRun?: boolean;
}

/** What init did (its --json document). */
export interface InitResult {
  manifest: string;
  /** The manifest was created by this run. */
  created: boolean;
  engine?: Engine;
  dryRun: boolean;
  /** Something was written. */
  changed: boolean;
  files: { path: string; action: PlannedChange['action']; purpose: string }[];
  /** Where the build writes provenance sidecars: the manifest's `provenance:` (`configured`), else where `provenance: sidecar` would. */
  sidecars: { configured: boolean; place: SidecarPlace['sidecars']; dir?: string };
  /** Phaser and PixiJS: the code to add (nothing is written for them), printed on stdout. */
  snippet?: EngineSetup['snippet'];
  /** Files written, relative to the current directory (printed on stdout). */
  written: string[];
}

export const init = command({ run: initProject, render: renderInit, document: ({ written: _written, ...document }) => document });

async function initProject(ctx: CommandContext, options: InitOptions): Promise<InitResult> {
  const target = path.resolve(ctx.cwd, options.file ?? MANIFEST_FILE);
  const shown = displayPath(ctx, target);
  const root = path.dirname(target);
  const exists = fs.existsSync(target);
  if (exists && !options.engine)
    throw new UsageError(
      `${shown} already exists; assetgen init never replaces it.`,
      'Edit it, or pass -f <path> to write a new one elsewhere; `assetgen init --engine <engine>` sets up an engine project beside it.',
    );
  const starter = readRegularFileSync(fileURLToPath(STARTER), undefined, 'utf8');
  const manifest = exists ? loadManifest(target, ctx.cwd) : parseManifest(starter, { file: target, display: shown });
  const setup = options.engine ? engineSetup(options.engine, root, manifest) : undefined;
  const changes = [
    ...(exists ? [] : [createChange(path.basename(target), null, starter, 'the commented starter manifest', false)]),
    gitignoreChange(root, ignoredLines(DEFAULT_REPORT)),
    ...(setup?.changes ?? []),
  ];
  const sidecars = manifest.provenance ?? { sidecars: 'folder' as const, dir: PROVENANCE_DIR };
  const result: InitResult = {
    manifest: target,
    created: false,
    ...(options.engine ? { engine: options.engine } : {}),
    dryRun: Boolean(options.dryRun),
    changed: false,
    files: changes.map((change) => ({ path: change.path, action: change.action, purpose: change.purpose })),
    sidecars: {
      configured: Boolean(manifest.provenance),
      place: sidecars.sidecars,
      ...(sidecars.sidecars === 'folder' ? { dir: sidecars.dir } : {}),
    },
    ...(setup?.snippet ? { snippet: setup.snippet } : {}),
    written: [],
  };
  showChanges(ctx, root, changes);
  if (setup?.outside) ctx.out.warn(`Unity does not import ${setup.outside.join(', ')} (outside Assets/): no import defaults there.`);
  if (!changesSomething(changes) || options.dryRun) return result;
  await confirmChanges(ctx, changes, path.basename(target), Boolean(options.yes));
  // A manifest further up would have been used from here until now: say that this one takes over.
  const outer = exists ? null : findManifest(path.dirname(root));
  const written = applyChanges(root, changes);
  if (outer)
    ctx.out.info(`Note: ${displayPath(ctx, outer)} is further up; commands run under ${displayPath(ctx, root)} now use the new one.`);
  return {
    ...result,
    created: !exists,
    changed: true,
    written: written.map((file) => displayPath(ctx, path.join(root, file))),
  };
}

/** Each change: what it is for, then its diff (the starter is only named). */
function showChanges(ctx: CommandContext, root: string, changes: readonly PlannedChange[]): void {
  const { style } = ctx.out;
  for (const change of changes) {
    const name = displayPath(ctx, path.join(root, change.path));
    ctx.out.info(`${style.bold(`${change.action.padEnd(9)} ${name}`)}  (${change.purpose})`);
    if (change.action === 'unchanged' || !change.showDiff) continue;
    for (const line of renderDiff(change.before, change.splices)) {
      const text = `  ${sanitizeLine(line)}`;
      ctx.out.info(
        line.startsWith('+') ? style.green(text) : line.startsWith('-') ? style.red(text) : line.startsWith('@@') ? style.cyan(text) : text,
      );
    }
  }
}

/**
 * Changes that need the user's yes: the engine's files. The starter (a new file, never over one) and
 * the .gitignore lines (only ever appended, each once) are made without asking, as init always made
 * the starter: a script's plain `assetgen init` in a repository with a .gitignore keeps working.
 */
const needsConsent = (change: PlannedChange, manifestFile: string): boolean =>
  change.action !== 'unchanged' && change.path !== GITIGNORE && change.path !== manifestFile;

/**
 * On a terminal, asks before writing an engine's changes (unless --yes). Without one, an engine's
 * new file is made, but a change to one already there (project.godot, game.project, the Unity
 * script) takes --yes: exit 2, nothing written.
 */
async function confirmChanges(ctx: CommandContext, changes: readonly PlannedChange[], manifestFile: string, yes: boolean): Promise<void> {
  const asked = changes.filter((change) => needsConsent(change, manifestFile));
  if (yes || asked.length === 0) return;
  if (ctx.interactive) {
    await confirmOrCancel(ctx, 'Write these changes?', {
      default: true,
      untouched: 'changed',
      cancelled: 'Cancelled: nothing was written.',
    });
    return;
  }
  const edits = asked.filter((change) => change.action === 'update').map((change) => change.path);
  // With -q no diff was shown: say where to see it instead of pointing above.
  if (edits.length)
    throw new UsageError(
      `assetgen init would change ${edits.join(', ')} (${ctx.out.quiet ? 'not shown with -q' : 'the diff above'}); there is no terminal to ask on (or --no-input was given).`,
      ctx.out.quiet
        ? 'Pass --yes to write it, or --dry-run without -q to see the diff first; nothing was written.'
        : 'Pass --yes to write it, or --dry-run to only see it; nothing was written.',
    );
}

function renderInit(ctx: CommandContext, result: InitResult): void {
  for (const file of result.written) ctx.out.result(file);
  if (result.dryRun) ctx.out.info('Dry run: nothing was written.');
  else if (!result.changed) ctx.out.info('Already set up: nothing to write.');
  // Phaser's and PixiJS's one result: the code to paste, on stdout as it is (even with -q), after
  // the files written; only the line saying where it goes is for people (stderr).
  if (result.snippet) {
    ctx.out.info(`Add this to ${result.snippet.where} (assetgen writes nothing for it):`);
    ctx.out.info('');
    ctx.out.result(result.snippet.code);
    ctx.out.info('');
  }
  const place: SidecarPlace =
    result.sidecars.place === 'beside' ? { sidecars: 'beside' } : { sidecars: 'folder', dir: result.sidecars.dir! };
  ctx.out.info(
    result.sidecars.configured
      ? `Provenance sidecars go ${describePlace(place)}${place.sidecars === 'beside' ? ', where they ship with the game' : ', outside the outputs: never shipped'}.`
      : `Provenance sidecars (with \`provenance: sidecar\` in the manifest) go ${describePlace(place)}, outside the outputs: never shipped.`,
  );
  if (result.created)
    ctx.out.info(`Next: list your assets in it, then \`${dryRunCommand(ctx, result.manifest)}\` shows the plan and its cost.`);
}

/**
 * The dry run of the manifest just made, as it runs from here: with `-f <path>` unless it is the one
 * a plain `assetgen build` finds (the nearest assetgen.yaml from here upward).
 */
function dryRunCommand(ctx: CommandContext, manifest: string): string {
  if (findManifest(ctx.cwd) === manifest) return 'assetgen build --dry-run';
  return `assetgen build -f ${shellQuote(displayPath(ctx, manifest))} --dry-run`;
}
