// Plain-text tables the way gh prints them.
import stringWidth from 'string-width';
import type { CommandContext } from './context.js';

/**
 * Prints rows on stdout the way `gh` does: on a terminal, aligned columns under a header, measured
 * by display width (CJK and emoji take two columns, combining marks none) and fitted to the
 * terminal so that no line wraps (the last column gives way first, then the widest); piped, tab-separated rows without a header, never cut
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
  const natural: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (natural[i] = Math.max(natural[i] ?? 0, stringWidth(cell))));
  const widths = terminalColumns ? fitWidths(natural, terminalColumns) : natural;
  return rows.map((row, rowIndex) => {
    const last = row.length - 1;
    const cells = row.map((cell, i) => {
      const cut = terminalColumns ? truncateToWidth(cell, widths[i]) : cell;
      return i === last ? cut : cut + ' '.repeat(widths[i] - stringWidth(cut));
    });
    return cells
      .map((cell) => decorate(cell, rowIndex))
      .join(GAP)
      .trimEnd();
  });
}

/** A column is cut to no fewer columns than this while another can still give some up. */
const MIN_COLUMN = 8;

/**
 * Column widths whose sum (with the gaps) fits the terminal, so that no line wraps: the last column
 * (a description, a label) gives way first, then the widest of the middle ones, then the first (the
 * id a person copies), each down to MIN_COLUMN; only then, on a very narrow terminal, below it.
 */
function fitWidths(natural: readonly number[], columns: number): number[] {
  const widths = [...natural];
  const last = widths.length - 1;
  const available = columns - GAP.length * Math.max(0, last);
  let excess = widths.reduce((sum, width) => sum + width, 0) - available;
  const widest = (indexes: number[], floor: number): number =>
    indexes.filter((i) => widths[i] > floor).reduce((best, i) => (best < 0 || widths[i] > widths[best] ? i : best), -1);
  const middle = widths.map((_, i) => i).filter((i) => i > 0 && i < last);
  const all = widths.map((_, i) => i);
  while (excess > 0) {
    const pick = [widest([last], MIN_COLUMN), widest(middle, MIN_COLUMN), widest([0], MIN_COLUMN), widest(all, 1)].find((i) => i >= 0);
    if (pick === undefined) break;
    widths[pick]--;
    excess--;
  }
  return widths;
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
