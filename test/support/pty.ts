// The real CLI on a pseudo-terminal: what a person at a keyboard sees and types.
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
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
  drainBeforeDestroy(child, (text) => (output += text));
  // node-pty reports the exit once its reader has read the terminal to its end (or was destroyed
  // after draining it, below): everything the process wrote is in `output` by then.
  const exited = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const exit = exited;
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
 * node-pty waits for its reader to reach the terminal's end before it reports an exit, but gives up
 * 200 ms after the child's exit (for macOS, where the end may never come) and destroys the reader,
 * dropping whatever the child wrote that it had not read yet: on a loaded machine, a process's last
 * lines (an error message before exit 4, say). Before that destroy, read what is left in the
 * terminal synchronously: the child is gone, so all it wrote is there, and a non-blocking read
 * ends at EAGAIN or EIO. Reaches into node-pty's reader (`_socket`, `_fd`), checked at run time.
 */
function drainBeforeDestroy(child: pty.IPty, append: (text: string) => void): void {
  const inner = child as unknown as { _socket?: { destroy?: (...args: unknown[]) => unknown }; _fd?: number };
  const socket = inner._socket;
  const fd = inner._fd;
  if (!socket || typeof socket.destroy !== 'function' || typeof fd !== 'number') return; // Windows: no such reader
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (...args: unknown[]) => {
    const buffer = Buffer.alloc(64 * 1024);
    const decoder = new StringDecoder('utf8');
    // Bounded: a terminal holds a few KiB; 1,024 reads of 64 KiB is far past any test's output.
    for (let reads = 0; reads < 1_024; reads++) {
      let count: number;
      try {
        count = fs.readSync(fd, buffer, 0, buffer.length, null);
      } catch {
        break; // EAGAIN (nothing left) or EIO (the terminal's end)
      }
      if (count === 0) break;
      append(decoder.write(buffer.subarray(0, count)));
    }
    append(decoder.end());
    return destroy(...args);
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
  // biome-ignore-start lint/suspicious/noControlCharactersInRegex: escape sequences are what this reads
  const tokens = output.replace(/\x1b\[[0-9;]*m/g, '').match(/\x1b\[(\d*)([AJ])|\x1b\[\??[0-9;]*[a-zA-Z]|\r|\n|[^\x1b\r\n]+/g) ?? [];
  for (const token of tokens) {
    const move = /^\x1b\[(\d*)([AJ])$/.exec(token);
    // biome-ignore-end lint/suspicious/noControlCharactersInRegex: the escape sequences end here
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
