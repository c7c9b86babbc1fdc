// Plain-text tables the way gh prints them. The layout (src/cli/text-width.ts) is loaded only
// for a terminal: piped rows are printed as they are, without measuring them.
import type { CommandContext } from './context.js';
import type { TableOptions } from './text-width.js';

/**
 * Prints rows on stdout the way `gh` does: on a terminal, aligned columns under a header, measured
 * by display width (CJK and emoji take two columns, combining marks none) and fitted to the
 * terminal so that no line wraps (text-width.ts, fitColumns) and the id stays whole; piped, tab-separated rows
 * without a header, never cut (easy for `cut`/`awk`). Cells must be sanitised.
 */
export async function printTable(ctx: CommandContext, header: string[], rows: string[][], options: TableOptions = {}): Promise<void> {
  if (!ctx.io.stdoutIsTTY) {
    for (const row of rows) ctx.out.result(row.join('\t'));
    return;
  }
  const { layoutTable } = await import('./text-width.js');
  const columns = (ctx.io.stdout as { columns?: number }).columns;
  // Bold after measuring and cutting: a cut through a colour escape would leave the terminal bold.
  const bold = (cell: string, row: number): string => (row === 0 ? ctx.out.style.bold(cell) : cell);
  const table = layoutTable([header, ...rows], columns, bold, options);
  for (const line of table.lines) ctx.out.result(line);
  if (table.leftOut.length)
    ctx.out.info(`Left out to fit ${columns} columns: ${table.leftOut.join(', ')} (pipe the output, or use --json, for every column).`);
}
