// The end of a command that saved files: its result carries `saved` and `media` (with `credits`,
// charged.ts); for people, the saved paths (once each), previews, and what it cost.
import { mediaInfo } from '../files/media-info.js';
import { previewSaved } from '../ui/preview/index.js';
import { sanitizeLine } from '../ui/sanitize.js';
import type { CommandContext } from './context.js';
import { mockMark, renderCredits, withCredits, type Charged } from './charged.js';
import type { CreditsReport } from './credits.js';
import { displayPath } from './save.js';

/** A saved file's format and pixel size, read from its header (null where the format has none). */
export type SavedMedia = ReturnType<typeof mediaInfo>;

/** The result of a command that saved files. */
export type SavedResult<T> = Charged<T & { saved: string[]; media: SavedMedia[] }>;

/**
 * Every command that saves files comes through here: each result with `saved` also has `media`,
 * each file's format and pixel size, in the same order.
 */
export function savedResult<T extends object>(ctx: CommandContext, saved: string[], document: T): SavedResult<T> {
  const files = saved.filter((file) => file !== '-');
  return withCredits(ctx, { ...document, saved: files, media: files.map(mediaInfo) });
}

/**
 * Each saved path once: on stdout as the result; on stderr as "Saved …" only when stdout is not
 * the terminal the person is looking at (piped into a script, say). Then, with --preview, the
 * saved images inline on stderr; then what it cost.
 */
export function renderSaved(ctx: CommandContext, result: { saved: string[]; credits: CreditsReport }): void {
  for (const file of result.saved) {
    ctx.out.result(file);
    if (!ctx.io.stdoutIsTTY || ctx.out.json) ctx.out.info(`Saved ${displayPath(ctx, file)}${mockMark(ctx)}`);
  }
  previewSaved(
    {
      stderr: ctx.io.stderr,
      stderrIsTTY: ctx.io.stderrIsTTY,
      json: ctx.out.json,
      quiet: ctx.out.quiet,
      env: ctx.env,
      flag: ctx.globals.preview,
      display: (file) => displayPath(ctx, file),
    },
    result.saved,
  );
  renderCredits(ctx, result);
}

/** A paid job's result for people: the files it saved when it was waited for, else its id on stdout. */
export function renderPaidJob(ctx: CommandContext, result: { credits: CreditsReport; saved?: string[]; job?: unknown }): void {
  if (result.saved) return renderSaved(ctx, { ...result, saved: result.saved });
  const id = (result.job as { id?: unknown } | undefined)?.id;
  if (typeof id === 'string') ctx.out.result(id);
  renderCredits(ctx, result);
}

/** A record a list left out: a workflow with an odd id, a journal line that is not a record. */
export interface SkippedEntry {
  id: string | null;
  why: string;
  /** For a line of a local file. */
  line?: number;
}

/**
 * One warning on stderr per record a list left out (human output); the --json document carries
 * them as `skipped` instead. `what` names the kind of record, e.g. "workflow".
 */
export function warnSkipped(ctx: CommandContext, what: string, skipped: readonly SkippedEntry[]): void {
  if (ctx.out.json) return;
  for (const entry of skipped) {
    const where = entry.line !== undefined ? ` on line ${entry.line}` : '';
    const id = entry.id !== null ? ` "${sanitizeLine(entry.id)}"` : '';
    ctx.out.warn(`skipped the ${what}${where}${id}: ${entry.why}.`);
  }
}
