// The end of every command that talked to the service: its result carries `credits` (what it
// spent) and, on the bundled mock, `"mock": true` (a result from the mock is never mistaken for a
// real asset); people get what it cost on stderr. Light on purpose: a command that renders a
// result loads this, not the saved-file presentation of report.ts (and its image previews).
import type { CommandContext } from './context.js';
import { creditsLine, type CreditsReport } from './credits.js';

/** What every result of a command that talked to the service carries: `credits` and, on the mock, `mock: true`. */
export type Charged<T> = T & { credits: CreditsReport; mock?: true };

/** A command's document as its result: `credits` (what this command spent) and `mock` added. */
export function withCredits<T extends object>(ctx: CommandContext, document: T): Charged<T> {
  return { ...document, credits: ctx.credits.report, ...(ctx.globals.mock ? { mock: true as const } : {}) };
}

/** The commands whose credits line people have been shown (a failure after it says it once, not twice). */
const shown = new WeakSet<CommandContext>();

/** People's end of a command that talked to the service: what it cost (the result's `credits`), on stderr. */
export function renderCredits(ctx: CommandContext, result: { credits: CreditsReport }): void {
  const line = creditsLine(result.credits);
  if (line) ctx.out.info(ctx.out.style.dim(`${line}${mockMark(ctx)}`));
  shown.add(ctx);
}

/**
 * People's end of a command that failed: what it spent so far, when its result did not say it
 * (the `--json` error carries the same `credits`). undefined when nothing was spent or it was said.
 */
export function creditsOfFailure(ctx: CommandContext): string | undefined {
  const report = ctx.credits.report;
  // A balance alone is no spending (a free call's answer says one): nothing to tell then.
  if (shown.has(ctx) || !(report.charged || report.refunded || report.unknownCharges)) return undefined;
  const line = creditsLine(report);
  return line && ctx.out.style.dim(`${line}${mockMark(ctx)}`);
}

/** ` (mock)` after what a command on the bundled mock reports. */
export const mockMark = (ctx: CommandContext): string => (ctx.globals.mock ? ' (mock)' : '');
