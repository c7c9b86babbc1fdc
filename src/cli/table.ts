// Plain-text tables the way gh prints them.
import type { CommandContext } from './context.js';

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
