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

/** Spawns `assetgen <args>` on a 140×40 terminal; killed after 25 s so a hang fails the test. */
export function spawnPty(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }): PtySession {
  const child = pty.spawn(process.execPath, [BIN, ...args], {
    cols: 140,
    rows: 40,
    cwd: options.cwd,
    env: options.env as Record<string, string>,
  });
  let output = '';
  let seen = 0;
  child.onData((data) => (output += data));
  const exit = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const timer = setTimeout(() => child.kill(), 25_000);
  void exit.then(() => clearTimeout(timer));
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
