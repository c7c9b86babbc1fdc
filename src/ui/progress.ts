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
  // A terminal that reports no width (some pseudo-terminals) would make a spinner's redraw
  // arithmetic misbehave: plain lines are the safe choice there.
  const columns = (out.streams.stderr as { columns?: number }).columns ?? 0;
  if (out.streams.stderrIsTTY && columns > 0) {
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

/** One line per distinct status, so a log shows each step once. */
function plainProgress(out: Output, text: string): Progress {
  let last = '';
  const line = (next: string): void => {
    if (next === last) return;
    last = next;
    out.info(next);
  };
  line(text);
  return {
    update: line,
    succeed: (final) => line(final),
    fail: (final) => line(final),
    stop: () => {},
  };
}

const silentProgress: Progress = { update() {}, succeed() {}, fail() {}, stop() {} };
