// `assetgen check`: measures the output images of the manifest's assets as they are on disk and
// holds them to the manifest's `checks:` rules (src/pipeline/checks.ts); no service call, no
// credentials, for CI (exit 9 when a rule is broken). `build --check` presents the same figures
// after its build, through the functions here.
import { command } from '../../cli/command.js';
import type { CommandContext } from '../../cli/context.js';
import { ChecksFailedError, UsageError } from '../../cli/errors.js';
import { displayPath } from '../../cli/save.js';
import { selectIds } from '../../pipeline/shard.js';
import { printTable } from '../../cli/table.js';
import { HASH_BITS } from '../../imaging/limits.js';
import { lockFileFor, readLock } from '../../pipeline/lock.js';
import { loadManifest, locateManifest } from '../../pipeline/manifest.js';
import { keepYoungGenerationSmall } from '../../heap.js';
import type { CheckedFile, CheckReport, UnmeasuredFile } from '../../pipeline/checks.js';
import type { Lock, Manifest } from '../../pipeline/records.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { plural } from '../../cli/credits.js';

export interface CheckOptions {
  file?: string;
}

/** `assetgen check --json`: the manifest and lock read, then the report (docs/check.md). */
export interface CheckDocument extends CheckReport {
  manifest: string;
  lock: string;
  /** No rule broken. */
  ok: boolean;
}

export const check = command({
  run: async (ctx: CommandContext, selectors: string[], options: CheckOptions): Promise<CheckDocument> => {
    keepYoungGenerationSmall();
    const file = locateManifest(ctx.cwd, options.file, ctx.frontEnd.otherManifest);
    const lockFile = lockFileFor(file);
    const manifest = loadManifest(file, ctx.cwd, undefined, { budgetIs: ctx.frontEnd.budgetIs });
    const { selected, unmatched } = selectIds(
      manifest.assets.map((asset) => asset.id),
      selectors,
    );
    if (unmatched.length)
      throw new UsageError(`No asset matches ${unmatched.map((s) => `"${s}"`).join(', ')} in ${displayPath(ctx, file)}.`);
    return measureProject(manifest, readLock(lockFile), { manifest: file, lock: lockFile }, selectors.length ? selected : undefined);
  },
  render: (ctx, result) => renderChecks(ctx, result),
  settle: (_ctx, result) => throwIfBroken(result),
});

/** The figures of a project's outputs as the lock records them; sharp is loaded here, on use. */
export async function measureProject(
  manifest: Manifest,
  lock: Lock,
  where: { manifest: string; lock: string },
  selected?: ReadonlySet<string>,
): Promise<CheckDocument> {
  const { checkOutputs } = await import('../../pipeline/checks.js');
  const report = await checkOutputs(manifest, lock, selected);
  return { ...where, ...report, ok: report.failures.length === 0 };
}

const TABLE = ['ID', 'FILE', 'SIZE', 'ALPHA', 'FILL', 'COLORS', 'SEAM', 'OUTLIER', 'RESULT'];

/** People's view: one row per output image (and per output not measured), each broken rule on stderr, a summary line. */
export async function renderChecks(ctx: CommandContext, result: CheckDocument): Promise<void> {
  if (ctx.out.json) return;
  const brokenBy = new Map<string, string[]>();
  for (const failure of result.failures) {
    const key = `${failure.id}\0${failure.path ?? ''}`;
    brokenBy.set(key, [...(brokenBy.get(key) ?? []), failure.rule]);
  }
  const ruled = new Set(Object.keys(result.rules));
  const verdict = (file: CheckedFile): string => {
    const broken = brokenBy.get(`${file.id}\0${file.path}`);
    return broken ? `FAIL ${[...new Set(broken)].join(', ')}` : ruled.has(file.id) ? 'ok' : 'no rules';
  };
  const blank = ['', '', '', '', '', ''];
  const rows = [
    ...result.files.map((file) => [...figureCells(file), verdict(file)]),
    ...result.unmeasured.map((file: UnmeasuredFile) => [
      file.id,
      file.path ?? '',
      ...blank,
      `${brokenBy.has(`${file.id}\0${file.path ?? ''}`) ? 'FAIL ' : ''}${file.problem}`,
    ]),
  ];
  if (rows.length)
    await printTable(
      ctx,
      TABLE,
      rows.map((row) => row.map(sanitizeLine)),
      { leaveOutFirst: ['OUTLIER', 'SEAM', 'FILE', 'SIZE'] },
    );
  else ctx.out.info('The manifest lists no assets with output images.');
  // Printed even with --quiet, as errors are: a CI log must say which rule broke.
  for (const failure of result.failures) ctx.out.error(`✗ ${sanitizeLine(failure.message)}`);
  ctx.out.info(summaryLine(result));
}

/** The figures of one file as table cells, from ID to OUTLIER. */
function figureCells(file: CheckedFile): string[] {
  const colours = `${file.colors.atLeast ? '>' : ''}${file.colors.count}`;
  const outlier = file.outlier ? `${file.outlier.distance}/${HASH_BITS}${file.outlier.flagged ? ' outlier' : ''}` : '';
  return [
    file.id,
    file.path,
    `${file.width}×${file.height}`,
    file.alpha ? 'yes' : 'no',
    String(file.fill),
    colours,
    file.seam === undefined ? '' : String(file.seam),
    outlier,
  ];
}

function summaryLine(result: CheckDocument): string {
  const measured = `Checked ${plural(result.totals.files, 'image')} of ${plural(result.totals.assets, 'asset')}`;
  const unmeasured = result.totals.unmeasured ? `, ${result.totals.unmeasured} not measured` : '';
  const broken = result.failures.length ? `${plural(result.failures.length, 'rule')} broken` : 'no rule broken';
  return `${measured}${unmeasured}: ${broken} (no service call).`;
}

/** The exit of a check: 9 when a rule is broken, naming each (the first few in the message; every one in --json). */
export function throwIfBroken(result: CheckDocument): void {
  const { failures } = result;
  if (!failures.length) return;
  const shown = failures.slice(0, 5).map((failure) => failure.message);
  const more = failures.length > shown.length ? `; and ${failures.length - shown.length} more` : '';
  throw new ChecksFailedError(
    sanitizeLine(`${plural(failures.length, 'check')} failed: ${shown.join('; ')}${more}.`),
    'Fix those outputs (a post step, another take, a new prompt) or the rules under `checks:` in the manifest; the JSON result lists every figure (docs/check.md).',
  );
}
