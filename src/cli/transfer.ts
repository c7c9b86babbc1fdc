// Progress of one download: nothing for a quick one; after a moment, bytes, total and rate on one
// line updated in place on a terminal; on a pipe only with --verbose (as calm plain lines).
import { startProgress, type Progress } from '../ui/progress.js';
import type { CommandContext } from './context.js';
import { paceMemory } from './memory.js';

/** A transfer shorter than this shows nothing. */
const QUIET_START_MS = 500;
/** The line is redrawn at most this often: in place on a terminal; as a new line in a log. */
const REDRAW_MS = 100;
const PLAIN_LINE_MS = 2_000;

export interface TransferProgress {
  onProgress: (bytes: number, total?: number) => void;
  /** Ends the line (success or not): the caller prints what happened. */
  stop: () => void;
}

export function transferProgress(ctx: CommandContext, label: string, now: () => number = Date.now): TransferProgress {
  const pace = paceMemory();
  const shown = ctx.out.animate || (ctx.globals.verbose && !ctx.out.quiet);
  if (!shown || ctx.out.json) return { onProgress: (bytes) => pace(bytes), stop() {} };
  const started = now();
  const every = ctx.out.animate ? REDRAW_MS : PLAIN_LINE_MS;
  let progress: Promise<Progress> | undefined;
  let lastDraw = 0;
  let stopped = false;
  return {
    onProgress(bytes, total) {
      pace(bytes);
      const at = now();
      if (stopped || at - started < QUIET_START_MS || at - lastDraw < every) return;
      lastDraw = at;
      const text = describeTransfer(label, bytes, total, (at - started) / 1000);
      if (!progress) progress = startProgress(ctx.out, text);
      else void progress.then((p) => !stopped && p.update(text));
    },
    stop() {
      stopped = true;
      void progress?.then((p) => p.stop());
    },
  };
}

/** `Downloading gen_1.png: 1.2 MB of 5.0 MB (24%), 3.4 MB/s`. */
export function describeTransfer(label: string, bytes: number, total: number | undefined, seconds: number): string {
  const rate = seconds > 0 ? `, ${formatBytes(bytes / seconds)}/s` : '';
  const of = total ? ` of ${formatBytes(total)} (${Math.floor((bytes / total) * 100)}%)` : '';
  return `Downloading ${label}: ${formatBytes(bytes)}${of}${rate}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
