// A build that ran, presented (build.ts): people's lines, its exit from its outcomes, and its
// --json document, each from the result alone. Apart from run.ts, which computes the result, so
// that presenting it loads none of the paid path (the pool, the lock writer, the save).
import { AbortedError, AssetgenError, AuthenticationError, TimeoutError, withHint } from '../../client/errors.js';
import type { CommandContext } from '../../cli/context.js';
import { capitalized } from '../../cli/front-end.js';
import { CreditCapError } from '../../cli/errors.js';
import { plural } from '../../cli/credits.js';
import { renderCredits } from '../../cli/charged.js';
import { sanitizeLine } from '../../ui/sanitize.js';
import { listIds } from '../../pipeline/id-list.js';
import { staleSheetLine } from './plan-summary.js';
import { exceededNote } from './cap.js';
import type { BuildRun, BuildRunResult } from './records.js';
import { renderChecks, throwIfBroken } from './check.js';
import { describePlace, otherPlace } from '../../pipeline/sidecar-place.js';
import type { SidecarPlace } from '../../pipeline/records.js';
import type { SidecarsWritten } from '../../pipeline/sidecars.js';
import type { AssetResult } from '../../pipeline/outcome.js';

/** People's view of a build that ran: each asset kept as it was, named with why; then one summary line. */
export async function renderRun(ctx: CommandContext, result: BuildRunResult): Promise<void> {
  // The pool named what it built, failed or skipped as it went; an asset left alone gets its line here.
  // A stale sheet is named once, by the warning below.
  const stale = new Set((result.staleSheets ?? []).map((sheet) => sheet.id));
  for (const item of result.items.filter((entry) => entry.outcome === 'kept' && !stale.has(entry.id)))
    ctx.out.info(`- ${sanitizeLine(item.id)}  kept: ${sanitizeLine((item.why ?? []).join('; '))}`);
  for (const sheet of result.staleSheets ?? []) ctx.out.warn(sanitizeLine(staleSheetLine(sheet)));
  // Takes nobody picked yet: the build used take 1, and says how to choose (a pipeline never waits).
  const unpicked = result.items.filter((entry) => entry.unpicked && (entry.outcome === 'built' || entry.outcome === 'resumed'));
  for (const item of unpicked) ctx.out.info(`  ${sanitizeLine(item.id)}: ${item.takes!.length} takes; ${sanitizeLine(item.unpicked!)}`);
  // Made, with something to say (a key that left its image opaque): not a failure, so a warning.
  for (const item of result.items)
    for (const warning of item.warnings ?? []) ctx.out.warn(`${sanitizeLine(item.id)}: ${sanitizeLine(warning)}`);
  const totals = result.totals;
  ctx.out.info(
    `Built ${totals.built}, resumed ${totals.resumed}${totals.restored ? `, restored ${totals.restored} from the remote cache` : ''}, unchanged ${totals.unchanged}` +
      `${totals.kept ? `, kept ${totals.kept} edited by hand` : ''}${totals.failed ? `, failed ${totals.failed}` : ''}` +
      `${totals.interrupted ? `, interrupted ${totals.interrupted} (paid, kept in the lock)` : ''}` +
      `${totals.capped ? `, held back by the cap ${totals.capped}` : ''}` +
      `${totals.skipped ? `, skipped ${totals.skipped}` : ''}${totals.pruned ? `, pruned ${totals.pruned}` : ''}; ${plural(totals.credits, 'credit')}` +
      `${result.planningCredits ? `, and ${result.planningCredits} for planning's \`workflows list\`` : ''}.`,
  );
  if (result.sidecars) ctx.out.info(sidecarsLine(result.sidecars));
  renderCredits(ctx, result);
  if (result.checks) await renderChecks(ctx, result.checks);
}

/** `Provenance: 3 sidecars written in .assetgen/provenance/, 2 already current (4 moved from beside the outputs; 2 removed: …).` */
function sidecarsLine(sidecars: SidecarsWritten): string {
  const place: SidecarPlace = sidecars.place === 'beside' ? { sidecars: 'beside' } : { sidecars: 'folder', dir: sidecars.dir! };
  const moved = sidecars.moved ?? sidecars.removed.length;
  const former = sidecars.removed.length - moved;
  const notes = [
    ...(moved ? [`${moved} moved ${describePlace(otherPlace(place), 'from')}`] : []),
    ...(former ? [`${former} removed: their files are no longer outputs`] : []),
  ];
  const removed = notes.length ? ` (${notes.join('; ')})` : '';
  return `Provenance: ${plural(sidecars.written.length, 'sidecar')} written ${describePlace(place)}, ${sidecars.current} already current${removed}.`;
}

/**
 * The exit of a build that ran, from its outcomes: interrupted 130; the service's refusal of the
 * credentials 4 or of the credits 5 (the assets after it not started, `skipped`); failed 1; capped 8; then what it
 * wrote after them and could not (the gallery, provenance sidecars), exit 1; then --check's broken
 * rules, exit 9. Those are reported in every case: with the build's own failure, each is printed
 * before it (--json: in the document).
 */
export function settleRun(ctx: CommandContext, result: BuildRun): void {
  const failed = result.sidecars?.failed ?? [];
  const afterwards = [
    result.galleryError,
    failed.length
      ? new AssetgenError(`${plural(failed.length, 'provenance sidecar')} could not be written: ${listIds(failed.map((f) => f.path))}.`, {
          code: 'provenance_failed',
          hint: `The build is recorded in assetgen.lock: fix what is in the way and ${ctx.frontEnd.buildAgain()} (writing a sidecar costs nothing).`,
        })
      : undefined,
    checksError(result),
  ].filter((error): error is AssetgenError => error !== undefined);
  try {
    throwForOutcome(ctx, result);
  } catch (error) {
    if (!ctx.out.json) for (const after of afterwards) ctx.out.failure(sanitizeLine(after.message));
    throw error;
  }
  if (!afterwards.length) return;
  if (!ctx.out.json) for (const after of afterwards.slice(1)) ctx.out.failure(sanitizeLine(after.message));
  throw afterwards[0];
}

/** --check's broken rules as the error they stand for (exit 9), or undefined. */
function checksError(result: BuildRun): AssetgenError | undefined {
  try {
    if (result.checks) throwIfBroken(result.checks);
    return undefined;
  } catch (error) {
    return error as AssetgenError;
  }
}

function throwForOutcome(ctx: CommandContext, { items, maxCredits, capName, priceRemedy, refused }: BuildRun): void {
  const failed = items.filter((item) => item.outcome === 'failed');
  const capped = items.filter((item) => item.outcome === 'capped');
  if (ctx.signal.aborted) {
    // A fresh error of the signal's kind (Ctrl-C or --timeout): the signal's own reason was handed to
    // every asset it stopped, and carries their single-call advice (a key, a job's wait command),
    // which is not how a build resumes.
    const reason: unknown = ctx.signal.reason;
    throw withHint(
      reason instanceof TimeoutError ? new TimeoutError(reason.message) : new AbortedError(),
      `Paid jobs are recorded in assetgen.lock: ${ctx.frontEnd.buildAgain(true)} to resume them by id, with no second charge (a call whose answer was lost is asked again with its idempotency key: free if the service honours Idempotency-Key).`,
    );
  }
  // Refused credentials or credits: every later call would be refused too, so that is what to fix
  // first, before the assets it failed or left unstarted (and before any cap) are tried again.
  if (refused) throw withHint(refused, refusalHint(ctx, refused, items));
  if (failed.length)
    throw new AssetgenError(
      `${failed.length} asset${failed.length === 1 ? '' : 's'} failed: ${listIds(failed.map((result) => result.id))}.`,
      { code: 'build_failed', hint: failedHint(ctx, failed) },
    );
  if (capped.length) {
    const unknown = capped.filter((item) => item.cap === 'unknown-cost').map((item) => item.id);
    const exceeded = capped.filter((item) => item.cap === 'declared-price-exceeded').map((item) => item.id);
    const inFlight = capped.filter((result) => result.resume).map((result) => result.id);
    // A price nobody knows is not fixed by a bigger budget: only what passed the cap is told to raise it.
    const overCap = capped.some((item) => item.cap === 'over-cap');
    const hints = [
      unknown.length
        ? (priceRemedy ??
          `No price is known for ${listIds(unknown)}: build one asset of each agent or workflow without a cap (${ctx.frontEnd.noCap}) to learn it.`)
        : '',
      exceeded.length ? exceededNote(exceeded) : '',
      inFlight.length
        ? `Paid jobs stopped before their next charged poll stay in assetgen.lock (${listIds(inFlight)}): a later build resumes them.`
        : '',
      overCap
        ? 'Raise the cap, or build the rest later: what was built is recorded and will not be paid for again.'
        : 'What was built is recorded and will not be paid for again.',
    ];
    throw new CreditCapError(
      `Held at ${capName ?? ctx.frontEnd.option('maxCredits', maxCredits ?? 'none')}: ${plural(capped.length, 'asset')} not built (${listIds(capped.map((result) => result.id))}).`,
      hints.filter(Boolean).join(' '),
    );
  }
}

/**
 * What to do about the failed assets, by the kind of each failure (its `error`, errors.ts
 * buildFailure): paid work the lock keeps is resumed by building again; a failure that building
 * again as it is repeats (a slice grid larger than the image, a sheet's frame too large for its page,
 * a name another asset owns) needs the manifest, or the file it names, changed first — saying "try
 * again" there would send the reader round the same failure; the rest (the service, the network)
 * may pass on a retry.
 */
function failedHint(ctx: CommandContext, failed: readonly AssetResult[]): string {
  const again = ctx.frontEnd.buildAgain();
  const resumable = failed.filter((result) => result.resume);
  const repeating = failed.filter((result) => !result.resume && result.error?.repeats);
  const others = failed.filter((result) => !result.resume && !result.error?.repeats);
  const ids = (results: readonly AssetResult[]) => listIds(results.map((result) => result.id));
  const resume = `Paid work is recorded in assetgen.lock: ${again} to resume it (no second charge for a job with an id; one without is asked again with its idempotency key, free if the service honours Idempotency-Key)`;
  if (!repeating.length) return resumable.length ? `${resume}; the others are tried afresh.` : `${capitalized(again)} to try them afresh.`;
  const each = repeating.length === 1 ? 'the failure' : 'each failure';
  return [
    `Building again as it is fails the same way${repeating.length === failed.length ? '' : ` for ${ids(repeating)}`}: fix the manifest (or the file ${each} names), then ${again}; re-processing is free (what was paid for is kept).`,
    resumable.length ? `${resume}${others.length ? '; the others are tried afresh' : ''}.` : '',
    !resumable.length && others.length ? `${capitalized(again)} to try ${ids(others)} afresh.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** What the build did after the service refused its credentials or credits, and what to do next. */
function refusalHint(ctx: CommandContext, refused: NonNullable<BuildRun['refused']>, items: BuildRun['items']): string {
  const when = refused instanceof AuthenticationError ? 'once the credentials are fixed' : 'once the account has credits';
  const resumable = items.filter((item) => item.resume).map((item) => item.id);
  return [
    'The build started no asset after this answer (those are `skipped`); what was built is recorded and will not be paid for again.',
    `${ctx.frontEnd.again} ${when}.`,
    resumable.length ? `The paid work recorded in assetgen.lock (${listIds(resumable)}) is resumed then.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** The --json document of a build that ran: the result without what only its exit reads (the gallery's error, the refusal, the cap's words). */
export function runDocument({
  galleryError: _error,
  refused: _refused,
  capName: _cap,
  priceRemedy: _remedy,
  ...document
}: BuildRun): BuildRunResult {
  return document;
}
