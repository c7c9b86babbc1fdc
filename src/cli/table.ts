// Plain-text tables the way gh prints them.
import stringWidth from 'string-width';
import type { CommandContext } from './context.js';

/**
 * Prints rows on stdout the way `gh` does: on a terminal, aligned columns under a header, measured
 * by display width (CJK and emoji take two columns, combining marks none) and fitted to the
 * terminal by shortening the last column; piped, tab-separated rows without a header, never cut
 * (easy for `cut`/`awk`). Cells must be sanitised.
 */
export function printTable(ctx: CommandContext, header: string[], rows: string[][]): void {
  if (!ctx.io.stdoutIsTTY) {
    for (const row of rows) ctx.out.result(row.join('\t'));
    return;
  }
  const columns = (ctx.io.stdout as { columns?: number }).columns;
  // Bold after measuring and cutting: a cut through a colour escape would leave the terminal bold.
  const bold = (cell: string, row: number): string => (row === 0 ? ctx.out.style.bold(cell) : cell);
  for (const line of alignColumns([header, ...rows], columns, bold)) ctx.out.result(line);
}

const GAP = '  ';

export function alignColumns(
  rows: string[][],
  terminalColumns?: number,
  decorate: (cell: string, row: number) => string = (cell) => cell,
): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, stringWidth(cell))));
  return rows.map((row, rowIndex) => {
    const cells = row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - stringWidth(cell))));
    const last = cells.length - 1;
    if (terminalColumns && last >= 0) {
      const used = cells.slice(0, last).reduce((sum, cell) => sum + stringWidth(cell) + GAP.length, 0);
      cells[last] = truncateToWidth(cells[last], Math.max(1, terminalColumns - used));
    }
    return cells
      .map((cell) => decorate(cell, rowIndex))
      .join(GAP)
      .trimEnd();
  });
}

const segmenter = new Intl.Segmenter();

/** Cuts text to at most `width` display columns, ending with `…` when something was cut. */
export function truncateToWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}
