// Small renderers shared by commands: credits lines and plain-text tables.
import type { CommandContext } from './context.js';

export interface CreditsInfo {
  charged?: number;
  remaining?: number;
}

/** "Charged 10 credits; 990 remaining." (or "Polling charged …") — only what the service reported. */
export function creditsLine(credits: CreditsInfo | undefined, label?: string): string | undefined {
  if (!credits) return undefined;
  const parts: string[] = [];
  if (credits.charged !== undefined)
    parts.push(`${label ? `${label} charged` : 'Charged'} ${credits.charged} credit${credits.charged === 1 ? '' : 's'}`);
  if (credits.remaining !== undefined) parts.push(`${credits.remaining} remaining`);
  return parts.length ? `${parts.join('; ')}.` : undefined;
}

export function reportCredits(ctx: CommandContext, credits: CreditsInfo | undefined, label?: string): void {
  const line = creditsLine(credits, label);
  if (line) ctx.out.info(ctx.out.style.dim(line));
}

/** Sums what a series of calls (the polls of a wait) charged; keeps the last balance seen. */
export class CreditTally {
  #charged?: number;
  #remaining?: number;

  add(credits: CreditsInfo): void {
    if (credits.charged !== undefined) this.#charged = (this.#charged ?? 0) + credits.charged;
    if (credits.remaining !== undefined) this.#remaining = credits.remaining;
  }

  get total(): CreditsInfo {
    return { charged: this.#charged, remaining: this.#remaining };
  }
}

/**
 * Prints rows on stdout the way `gh` does: aligned columns under a header on a terminal,
 * tab-separated rows without a header when piped (easy for `cut`/`awk`). Cells must be sanitised.
 */
export function printTable(ctx: CommandContext, header: string[], rows: string[][]): void {
  if (!ctx.io.stdoutIsTTY) {
    for (const row of rows) ctx.out.result(row.join('\t'));
    return;
  }
  for (const line of alignColumns([header.map((h) => ctx.out.style.bold(h)), ...rows])) ctx.out.result(line);
}

function alignColumns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - visibleLength(cell))))
      .join('  ')
      .trimEnd(),
  );
}

// eslint-disable-next-line no-control-regex -- strips the colour escapes chalk adds
const visibleLength = (text: string): number => text.replace(/\u001b\[[0-9;]*m/g, '').length;
