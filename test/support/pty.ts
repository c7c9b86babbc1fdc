// The real CLI on a pseudo-terminal: what a person at a keyboard sees and types.
import pty from '@lydell/node-pty';
import { BIN } from './cli.js';

export interface PtySession {
  /** Everything written to the terminal so far. */
  output(): string;
  /** The same as output(). */
  screen(): string;
  /** Resolves once `text` appears after everything already waited for (bounded: 10 s). */
  waitFor(text: string): Promise<void>;
  write(data: string): void;
  exit: Promise<number>;
}

export const KEYS = { enter: '\r', ctrlC: '\x03', escape: '\x1b', down: '\x1b[B', space: ' ' } as const;

/** Spawns `assetgen <args>` on a 140×40 terminal (or `cols` wide); killed after 25 s so a hang fails the test. */
export function spawnPty(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string; cols?: number }): PtySession {
  const child = pty.spawn(process.execPath, [BIN, ...args], {
    cols: options.cols ?? 140,
    rows: 40,
    cwd: options.cwd,
    env: options.env as Record<string, string>,
  });
  let output = '';
  let seen = 0;
  child.onData((data) => (output += data));
  // node-pty may report the exit before the last output has been read from the terminal: the exit
  // counts once the output has also gone quiet (100 ms without data, at most 2 s), so a test that
  // looks at the screen after it sees everything the process wrote.
  const exited = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const exit = exited.then(async (code) => {
    for (let waited = 0, length = -1; waited < 2_000 && output.length !== length; waited += 100) {
      length = output.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return code;
  });
  const timer = setTimeout(() => child.kill(), 25_000);
  void exited.then(() => clearTimeout(timer));
  return {
    output: () => output,
    screen: () => output,
    write: (data) => child.write(data),
    async waitFor(text) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const index = output.indexOf(text, seen);
        if (index >= 0) {
          seen = index + text.length;
          return;
        }
        if (Date.now() > deadline) throw new Error(`"${text}" not shown within 10 s; screen:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    exit,
  };
}

/**
 * What a terminal shows after `output`, for output that draws whole lines from column 0 (the
 * build's live board): text, CR, LF, "cursor up n" and "erase down"; colours are dropped.
 * Returns the screen's rows at the end, and every row that was erased (a live line drawn over).
 */
export function replayLines(output: string): { screen: string[]; erased: string[] } {
  const screen: string[] = [];
  const erased: string[] = [];
  let row = 0;
  let atLineStart = true;
  /* eslint-disable no-control-regex -- escape sequences are what this reads */
  const tokens = output.replace(/\x1b\[[0-9;]*m/g, '').match(/\x1b\[(\d*)([AJ])|\x1b\[\??[0-9;]*[a-zA-Z]|\r|\n|[^\x1b\r\n]+/g) ?? [];
  for (const token of tokens) {
    const move = /^\x1b\[(\d*)([AJ])$/.exec(token);
    /* eslint-enable no-control-regex */
    if (move?.[2] === 'A') row = Math.max(0, row - Number(move[1] || 1));
    else if (move?.[2] === 'J') erased.push(...screen.splice(row));
    else if (token === '\r' || token === '\n') {
      if (token === '\n') row += 1;
      atLineStart = true;
    } else if (!token.startsWith('\x1b')) {
      while (screen.length <= row) screen.push('');
      screen[row] = atLineStart ? token : screen[row] + token;
      atLineStart = false;
    }
  }
  return { screen: screen.filter((line, index) => line !== '' || index < screen.length - 1), erased };
}
