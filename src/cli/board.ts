// A live board on stderr for commands that run many things at once (a build's pool): one line per
// running item and a footer of totals, redrawn in place on a terminal, with each finished item's
// line left above it. Without a terminal (CI logs, agents, pipes), or with --verbose, only the
// finished lines are printed, one each; with --quiet, nothing.
//
// Every line is cut to the terminal's width before it is drawn, so no line ever wraps and erasing
// the board is "cursor up n rows, erase down" — no escape arithmetic for wrapped text is needed.
// The width measure (./text-width.ts, string-width) is loaded only then: on a terminal.
import type { CommandContext } from './context.js';

export interface Board {
  /** A running item's status (its line replaces the previous one). */
  set(key: string, status: string): void;
  /** The item is done: its running line goes, and `line` stays above the board. */
  finish(key: string, line: string): void;
  /** Erases the board (the finished lines stay): call before printing anything else. */
  stop(): void;
}

/** Redraws at most this often: enough to look alive, little enough to cost nothing. */
const FRAME_MS = 100;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `footer` is asked for the totals line at each redraw (done/total, credits, elapsed...). */
export async function startBoard(ctx: CommandContext, footer: () => string): Promise<Board> {
  const { out } = ctx;
  if (out.quiet) return { set() {}, finish() {}, stop() {} };
  // --verbose writes trace lines to stderr as requests happen: they would land inside the board.
  if (!out.animate || ctx.globals.verbose) return { set() {}, finish: (_key, line) => out.info(line), stop() {} };
  const { truncateToWidth } = await import('./text-width.js');

  const stderr = out.streams.stderr as NodeJS.WritableStream & { columns?: number };
  const running = new Map<string, { status: string; since: number }>();
  let finished: string[] = [];
  let drawnRows = 0;
  let frame = 0;
  let stopped = false;

  const draw = (): void => {
    const width = Math.max(20, (stderr.columns ?? 80) - 1);
    const spin = out.style.cyan(SPINNER[frame++ % SPINNER.length]);
    const now = Date.now();
    const rows = [...running].map(
      ([key, item]) => `${spin} ${truncateToWidth(`${key}  ${item.status}  ${Math.floor((now - item.since) / 1000)}s`, width - 2)}`,
    );
    rows.push(out.style.dim(truncateToWidth(footer(), width)));
    const erase = drawnRows ? `\r\x1b[${drawnRows}A\x1b[J` : '';
    const permanent = finished.map((line) => `${line}\n`).join('');
    finished = [];
    stderr.write(`${erase}${permanent}${rows.join('\n')}\n`);
    drawnRows = rows.length;
  };
  const timer = setInterval(draw, FRAME_MS);
  // The board must never keep a finished command alive.
  timer.unref();

  return {
    set(key, status) {
      const item = running.get(key);
      if (item) item.status = status;
      else running.set(key, { status, since: Date.now() });
    },
    finish(key, line) {
      running.delete(key);
      finished.push(line);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      running.clear();
      const erase = drawnRows ? `\r\x1b[${drawnRows}A\x1b[J` : '';
      stderr.write(`${erase}${finished.map((line) => `${line}\n`).join('')}`);
      finished = [];
      drawnRows = 0;
    },
  };
}
