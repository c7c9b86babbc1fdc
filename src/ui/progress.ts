// Live progress on stderr: an ora spinner when stderr is a terminal, plain lines otherwise (CI logs,
// agents, pipes), nothing at all with --quiet.
import type { Ora } from 'ora';
import type { Output } from './output.js';

export interface Progress {
  /** Replace the current status text. */
  update(text: string): void;
  /** Finish with a success line. */
  succeed(text: string): void;
  /** Finish with a failure line. */
  fail(text: string): void;
  /** Stop without a final line (for example before printing an error). */
  stop(): void;
}

export async function startProgress(out: Output, text: string): Promise<Progress> {
  if (out.quiet) return silentProgress;
  if (out.animate) {
    const { default: ora } = await import('ora');
    const spinner: Ora = ora({
      text,
      stream: out.streams.stderr,
      isEnabled: true,
      color: out.style.level > 0 ? 'cyan' : false,
      // Raw-mode stdin would swallow Ctrl-C; we handle SIGINT ourselves.
      discardStdin: false,
    }).start();
    return {
      update: (next) => {
        spinner.text = next;
      },
      succeed: (final) => void spinner.succeed(final),
      fail: (final) => void spinner.fail(final),
      stop: () => void spinner.stop(),
    };
  }
  return plainProgress(out, text);
}

/** A status that changes only by its percentage is the same step: shown at most this often. */
const PERCENT_LINE_INTERVAL_MS = 2_000;

/** One line per distinct step, so a log (or a dumb terminal) shows each step once, calmly. */
function plainProgress(out: Output, text: string): Progress {
  let last = '';
  let lastStep = '';
  let lastAt = 0;
  const line = (next: string, final = false): void => {
    if (next === last) return;
    const step = next.replace(/\s*\d+%/g, '');
    const now = Date.now();
    if (!final && step === lastStep && now - lastAt < PERCENT_LINE_INTERVAL_MS) return;
    last = next;
    lastStep = step;
    lastAt = now;
    out.info(next);
  };
  line(text);
  return {
    update: (next) => line(next),
    succeed: (final) => line(final, true),
    fail: (final) => line(final, true),
    stop: () => {},
  };
}

const silentProgress: Progress = { update() {}, succeed() {}, fail() {}, stop() {} };
