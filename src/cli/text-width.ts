// Display width (string-width: CJK and emoji take two columns, combining marks none) and the table
// layout measured by it. Loaded only where people are shown a table or a live board: string-width
// makes an Intl.Segmenter and compiles Unicode-property regexes on load (~50 ms of a dry run's CPU),
// which a piped or --json run never needs (src/cli/table.ts loads this file on a terminal only).
import stringWidth from 'string-width';

export interface TableOptions {
  /**
   * Header names in the order columns are left out when the table cannot fit the terminal with its
   * id whole (default: from the right). The column headed `ID` is never cut and never left out.
   */
  leaveOutFirst?: readonly string[];
}

/** The header of the column a person copies: never cut on a terminal. */
const ID_HEADER = 'ID';

const GAP = '  ';

/** The lines of a table whose first row is its header, and the headers of the columns left out. */
export function layoutTable(
  rows: string[][],
  terminalColumns?: number,
  decorate: (cell: string, row: number) => string = (cell) => cell,
  options: TableOptions = {},
): { lines: string[]; leftOut: string[] } {
  const header = rows[0] ?? [];
  const natural: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (natural[i] = Math.max(natural[i] ?? 0, stringWidth(cell))));
  const all = natural.map((_, i) => i);
  const order = [...(options.leaveOutFirst ?? []).map((name) => header.indexOf(name)).filter((i) => i >= 0), ...[...all].reverse()];
  const { shown, widths } = terminalColumns
    ? fitColumns(natural, terminalColumns, header.indexOf(ID_HEADER), order)
    : { shown: all, widths: natural };
  const lines = rows.map((row, rowIndex) => {
    const last = shown.length - 1;
    const cells = shown.map((column, i) => {
      const cell = row[column] ?? '';
      const cut = terminalColumns ? truncateToWidth(cell, widths[i]) : cell;
      return i === last ? cut : cut + ' '.repeat(Math.max(0, widths[i] - stringWidth(cut)));
    });
    return cells
      .map((cell) => decorate(cell, rowIndex))
      .join(GAP)
      .trimEnd();
  });
  return { lines, leftOut: all.filter((i) => !shown.includes(i)).map((i) => header[i] ?? '') };
}

/** A column is cut to no fewer columns than this while another can still give some up. */
const MIN_COLUMN = 8;

/**
 * Which columns to show, and how wide, so that no line wraps. Other columns give way first: the
 * last one, then the widest, each down to MIN_COLUMN. The id (`id`, -1 for none) is never cut: when
 * the rest cannot make room for it, columns are left out in `order` until it fits — at worst the
 * ids alone, one per line, whole even where the terminal has to wrap them. A table without an id
 * cuts every column instead, the first last, below MIN_COLUMN only on a very narrow terminal.
 */
function fitColumns(
  natural: readonly number[],
  columns: number,
  id: number,
  order: readonly number[],
): { shown: number[]; widths: number[] } {
  let shown = natural.map((_, i) => i);
  for (;;) {
    const widths = shrink(
      shown.map((i) => natural[i]),
      columns,
      shown.indexOf(id),
    );
    const fits = widths.reduce((sum, width) => sum + width, GAP.length * (shown.length - 1)) <= columns;
    const next = order.find((i) => i !== id && shown.includes(i));
    if (fits || id < 0 || next === undefined) return { shown, widths };
    shown = shown.filter((i) => i !== next);
  }
}

/** Narrows the columns (natural widths; `id` the position of the id, -1 for none) towards `columns`. */
function shrink(natural: readonly number[], columns: number, id: number): number[] {
  const widths = [...natural];
  const last = widths.length - 1;
  let excess = widths.reduce((sum, width) => sum + width, 0) - (columns - GAP.length * Math.max(0, last));
  const widest = (indexes: number[], floor: number): number =>
    indexes.filter((i) => i !== id && widths[i] > floor).reduce((best, i) => (best < 0 || widths[i] > widths[best] ? i : best), -1);
  const middle = widths.map((_, i) => i).filter((i) => i > 0 && i < last);
  const all = widths.map((_, i) => i);
  while (excess > 0) {
    // With an id, a column is left out rather than cut below MIN_COLUMN (fitColumns).
    const below = id < 0 ? [widest(all, 1)] : [];
    const pick = [widest([last], MIN_COLUMN), widest(middle, MIN_COLUMN), widest([0], MIN_COLUMN), ...below].find((i) => i >= 0);
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
