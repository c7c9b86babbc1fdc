// The end of a command that talked to the service: the saved paths (once each), what it cost, and
// the one --json document, which always carries `credits` and, on the bundled mock, `"mock": true`
// (a result from the mock is never mistaken for a real asset).
import { mediaInfo } from '../files/media-info.js';
import { previewSaved } from '../ui/preview/index.js';
import { sanitizeLine } from '../ui/sanitize.js';
import type { CommandContext } from './context.js';
import { displayPath } from './save.js';

/** Prints the credits line (stderr) and the --json document with `credits` and `mock` added. */
export function reportDocument(ctx: CommandContext, document: Record<string, unknown>): void {
  const line = ctx.credits.line();
  if (line) ctx.out.info(ctx.out.style.dim(`${line}${mockMark(ctx)}`));
  ctx.out.document({ ...document, credits: ctx.credits.report, ...(ctx.globals.mock ? { mock: true } : {}) });
}

/**
 * Each saved path once: on stdout as the result; on stderr as "Saved …" only when stdout is not
 * the terminal the person is looking at (piped into a script, say). Then, with --preview, the
 * saved images inline on stderr: every command that saves files comes through here, so each
 * --json document with `saved` also has `media`: each file's format and pixel size, in the same order.
 */
export function reportSaved(ctx: CommandContext, saved: string[], document: Record<string, unknown>): void {
  for (const file of saved) {
    if (file === '-') continue;
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
    saved.filter((file) => file !== '-'),
  );
  const files = saved.filter((file) => file !== '-');
  reportDocument(ctx, { ...document, saved: files, media: files.map(mediaInfo) });
}

export const mockMark = (ctx: CommandContext): string => (ctx.globals.mock ? ' (mock)' : '');

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
