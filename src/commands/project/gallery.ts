// The build gallery: `assetgen report` from the manifest and the lock alone (no network, no
// credentials), and the `--report <file.html>` of `assetgen build` (after a build, or from the plan
// with --dry-run). The cards come from src/pipeline/report.ts, the page from src/pipeline/gallery.ts.
import fs from 'node:fs';
import path from 'node:path';
import { AssetgenError } from '../../client/errors.js';
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import { displayPath } from '../../cli/save.js';
import {
  GALLERY_STATUSES,
  galleryTotals,
  renderGallery,
  type Gallery,
  type GalleryFile,
  type GalleryTotals,
} from '../../pipeline/gallery.js';
import type { Lock, Plan } from '../../pipeline/records.js';
import { planBuild } from '../../pipeline/plan.js';
import { cardsFromBuild, cardsFromPlan, loadCards, type Card } from '../../pipeline/report.js';
import { openRegularSync, placeToWrite, writeFileInside } from '../../files/confine.js';
import { outputRoot } from '../../cli/save.js';
import type { AssetResult } from '../../pipeline/outcome.js';
import type { CheckReport } from '../../pipeline/checks.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { openPlannedProject } from './open.js';
import { discloseProject, renderDisclosure } from './disclosure.js';
import type { Disclosure } from '../../pipeline/provenance.js';
import { UsageError } from '../../cli/errors.js';
import { htmlPathProblem } from '../../cli/value-checks.cjs';
import { pickCommand } from './takes.js';

/** Where `assetgen report` writes without -o: next to the manifest. */
export const DEFAULT_REPORT = 'assetgen-report.html';

export interface ReportOptions {
  file?: string;
  output?: string;
  /** The list of AI-generated files (disclosure.ts) instead of the gallery. */
  disclosure?: boolean;
  /** Replace an `-o` file that is not a gallery assetgen wrote. */
  force?: boolean;
}

/** What a gallery is made from: its header line, and what its credits total counts. */
const FROM = {
  lock: { source: 'from assetgen.lock', credits: 'recorded in the lock' },
  dryRun: { source: 'from the plan of a dry run', credits: 'recorded in the lock' },
  build: { source: 'after assetgen build', credits: 'charged by this build' },
} as const;

const NO_SERVICE = 'No service is configured, so specs were not compared: an asset whose files are intact shows as unchanged.';

/**
 * `assetgen report`: the gallery of what the lock records, judged against the manifest and the
 * files; with --disclosure, the list of AI-generated files instead.
 */
export const report = command({
  run: (ctx: CommandContext, options: ReportOptions): Promise<LockGallery | Disclosure> => {
    if (options.disclosure && options.output !== undefined)
      throw new UsageError(
        '--disclosure takes no -o: it prints to stdout (Markdown; --json: one document). -o names the HTML gallery, without --disclosure.',
        'Redirect it: `assetgen report --disclosure > DISCLOSURE.md`.',
      );
    if (options.disclosure) return discloseProject(ctx, options.file);
    const problem = options.output !== undefined ? htmlPathProblem(options.output) : undefined;
    if (problem) throw new UsageError(`-o ${options.output}: ${problem}`);
    return writeLockGallery(ctx, { ...options, output: options.output?.trim() });
  },
  render: (ctx, result) => ('digitalSourceType' in result ? renderDisclosure(ctx, result) : renderLockGallery(ctx, result)),
});

type LockGallery = Awaited<ReturnType<typeof writeLockGallery>>;

async function writeLockGallery(ctx: CommandContext, options: ReportOptions) {
  // The default file next to the manifest is assetgen's own (replaced every time); a file `-o` names may be someone's.
  if (options.output && !options.force)
    refuseForeignReport(
      ctx,
      path.resolve(ctx.cwd, options.output),
      `Pass ${ctx.frontEnd.option('force')} to replace it, or choose another path with ${ctx.frontEnd.option('output')}.`,
    );
  const { file, manifest, lockFile, service, lock, hashes } = openPlannedProject(ctx, options.file);
  // The service is part of every spec. Without one configured, the report still shows the lock and
  // the files, but cannot tell whether a spec changed since the build: it says so in the header.
  const plan = planBuild(manifest, lock, await hashes(), { service, compareSpecs: service !== '' });
  const target = options.output ? path.resolve(ctx.cwd, options.output) : path.join(manifest.root, DEFAULT_REPORT);
  const notes = service ? [] : [NO_SERVICE];
  const written = await writeGallery(ctx, target, 'lock', { file, service, notes, ...cardsFromPlan(plan, lock) });
  return { manifest: file, lock: lockFile, service: service || null, report: target, ...written };
}

function renderLockGallery(ctx: CommandContext, result: LockGallery): void {
  ctx.out.result(result.report);
  ctx.out.info(summary(ctx, result.report, result.totals, FROM.lock.credits));
}

/** `build --dry-run --report`: the same page from the plan the dry run printed; returns its path. */
export async function writePlanReport(
  ctx: CommandContext,
  target: string,
  plan: Plan,
  where: { file: string; lock: Lock },
): Promise<string> {
  const absolute = path.resolve(ctx.cwd, target);
  const { cards, gone } = cardsFromPlan(plan, where.lock);
  const { totals } = await writeGallery(ctx, absolute, 'dryRun', { file: where.file, service: plan.service, cards, gone });
  ctx.out.info(summary(ctx, absolute, totals, FROM.dryRun.credits));
  return absolute;
}

/** What writing a build's gallery left: the `report` (or `reportError`) of the --json document, and the error to raise. */
export interface BuildGallery {
  document: { report: string } | { reportError: string };
  error?: AssetgenError;
}

/**
 * `build --report`: the gallery of this build's outcomes, written whatever they were. A failure to
 * write it is not thrown here: the build's own outcome is reported first (run.ts, `settleRun`).
 */
export async function writeBuildReport(
  ctx: CommandContext,
  target: string,
  build: { plan: Plan; items: readonly AssetResult[]; lock: Lock; file: string; service: string; checks?: CheckReport },
): Promise<BuildGallery> {
  const absolute = path.resolve(ctx.cwd, target);
  try {
    const built = cardsFromBuild(build.plan, build.items, build.lock);
    const cards = build.checks ? withChecks(built.cards, build.checks) : built.cards;
    const gone = built.gone;
    const { totals } = await writeGallery(ctx, absolute, 'build', { file: build.file, service: build.service, cards, gone });
    ctx.out.info(summary(ctx, absolute, totals, FROM.build.credits));
    return { document: { report: absolute } };
  } catch (error) {
    const failure = asReportFailure(ctx, absolute, error);
    const hint = 'The build is recorded in assetgen.lock: `assetgen report -o <file.html>` writes the report again.';
    return { document: { reportError: failure.message }, error: new AssetgenError(failure.message, { code: failure.code, hint }) };
  }
}

/** Each card with its asset's figures from `build --check` (an asset without images has none). */
function withChecks(cards: Card[], report: CheckReport): Card[] {
  return cards.map((card) => {
    const mine = <T extends { id: string }>(list: T[]): Omit<T, 'id'>[] =>
      list.filter((entry) => entry.id === card.id).map(({ id: _id, ...rest }) => rest);
    const checks = {
      files: mine(report.files),
      unmeasured: mine(report.unmeasured),
      failures: mine(report.failures).map((f) => f.message),
    };
    return checks.files.length || checks.unmeasured.length ? { ...card, checks } : card;
  });
}

async function writeGallery(
  ctx: CommandContext,
  target: string,
  from: keyof typeof FROM,
  input: { file: string; service: string; notes?: string[]; cards: Card[]; gone: number },
): Promise<{ items: Record<string, unknown>[]; totals: GalleryTotals }> {
  const { cards, gone } = input;
  // A build counts what it charged; a report from the lock, what the lock says each asset cost.
  const counted = from === 'build' ? cards.filter((card) => card.creditsWhen === 'this build') : cards;
  const gallery: Gallery = {
    manifest: displayPath(ctx, input.file),
    generatedAt: new Date().toISOString(),
    source: FROM[from].source,
    ...(input.service ? { service: input.service } : {}),
    notes: [
      ...(input.notes ?? []),
      ...(gone ? [`${gone} asset${gone === 1 ? '' : 's'} gone from the manifest (pruned, or left in the lock) not shown.`] : []),
    ],
    assets: await loadCards(path.dirname(input.file), cards, pickCommand),
    credits: { total: counted.reduce((sum, card) => sum + (card.credits ?? 0), 0), label: FROM[from].credits },
  };
  await writeReportInside(ctx, target, renderGallery(gallery)).catch((error: unknown) => {
    throw asReportFailure(ctx, target, error);
  });
  const fileOf = (f: GalleryFile) => ({
    path: f.path,
    ...(f.width && f.height ? { width: f.width, height: f.height } : {}),
    ...(f.bytes ? {} : { problem: f.problem ?? 'missing' }),
  });
  const items = gallery.assets.map(({ files, takes, ...card }) => ({
    ...card,
    files: files.map(fileOf),
    ...(takes ? { takes: takes.map(({ file, ...take }) => ({ ...take, file: fileOf(file) })) } : {}),
  }));
  return { items, totals: galleryTotals(gallery) };
}

/** A page that cannot be written (a folder in the way, no permission, a full disk): exit 1, `report_failed`. */
function asReportFailure(ctx: CommandContext, target: string, error: unknown): AssetgenError {
  if (error instanceof AssetgenError) return error;
  const message = `Could not write the report ${displayPath(ctx, target)}: ${error instanceof Error ? error.message : String(error)}`;
  return new AssetgenError(message, { code: 'report_failed' });
}

function summary(ctx: CommandContext, target: string, totals: GalleryTotals, creditsLabel: string): string {
  const parts = GALLERY_STATUSES.filter((status) => totals[status]).map((status) => `${totals[status]} ${status}`);
  const assets = `${totals.assets} asset${totals.assets === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
  return sanitizeLine(`Report: ${displayPath(ctx, target)} (${assets}; ${totals.credits} credits ${creditsLabel}).`);
}

/**
 * Where the gallery goes, by the confinement rule a saved `-o` file follows (its folder is its
 * root; never through a link), and never over a file that is not a gallery assetgen wrote: checked
 * before a build pays (build.ts), then written. On build, --force means new paid generations, so
 * nothing overrides the refusal: remove the file or choose another path.
 */
export function checkReportTarget(ctx: CommandContext, target: string): void {
  refuseForeignReport(
    ctx,
    path.resolve(ctx.cwd, target),
    'Remove it, or choose another path with --report <file.html> (--force does not replace it: on build, it pays to regenerate assets).',
  );
}

/** How far into an existing file the gallery's generator tag is looked for (it comes before the stylesheet, in the first KB). */
const REPORT_HEAD_BYTES = 16 * 1024;
/** The tag every gallery's <head> carries (pipeline/gallery.ts, renderGallery): what says assetgen wrote a page. */
const GENERATOR_TAG = '<meta name="generator" content="assetgen">';

/**
 * Refuses (exit 2, before anything is read or written) a gallery path (`report -o`, `build
 * --report`) where a file is there already and is not a gallery assetgen wrote: one whose <head>,
 * within its first bytes, holds the generator tag. The gallery assetgen wrote there before is
 * replaced, as a re-run does. A path that leaves its root or goes through a link is refused here
 * too (placeToWrite); another kind of file, by the write itself (files/confine.ts). `hint`: how to go on.
 */
function refuseForeignReport(ctx: CommandContext, absolute: string, hint: string): void {
  const shown = displayPath(ctx, absolute);
  if (placeToWrite(outputRoot(ctx, absolute), absolute, shown).entry !== 'file' || isOwnReport(absolute)) return;
  throw new UsageError(
    sanitizeLine(`${shown} already exists and is not a gallery assetgen wrote (no assetgen generator tag in its <head>).`),
    sanitizeLine(hint),
  );
}

function isOwnReport(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openRegularSync(file).fd;
    const head = Buffer.alloc(REPORT_HEAD_BYTES);
    const text = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).toString('utf8');
    const tag = text.indexOf(GENERATOR_TAG);
    const headEnd = text.indexOf('</head>');
    return /^\s*<!doctype html>/i.test(text) && tag > 0 && (headEnd === -1 || tag < headEnd);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writeReportInside(ctx: CommandContext, absolute: string, html: string): Promise<void> {
  return writeFileInside(outputRoot(ctx, absolute), absolute, html, displayPath(ctx, absolute));
}
