// Help on a terminal that reports a width of 0 columns (some terminals and CI runners do): wrapped
// to 80 columns, as on a pipe, never to 0 — which put every description under its option, none
// wrapped. Three paths: commander's layout (HELP_LAYOUT, any width source), the screens rendered
// at build time (their width chosen by helpWidth), and the binary on a real terminal set to 0
// columns.
import { createRequire } from 'node:module';
import pty from '@lydell/node-pty';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as HelpScreensModule from '../../src/cli/help-screens.cjs';
import type * as ProgramModule from '../../src/program.cjs';
import { BIN, commandPaths, runCli, tempHome } from '../support/cli.js';

const require = createRequire(import.meta.url);
const { buildProgram } = require('../../dist/program.cjs') as typeof ProgramModule;
const { helpWidth, precomputedHelp } = require('../../dist/cli/help-screens.cjs') as typeof HelpScreensModule;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences a terminal gets
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]/g;

let home: ReturnType<typeof tempHome>;
beforeAll(() => {
  home = tempHome();
});
afterAll(() => home.remove());

/** What commander prints for `assetgen <args>` with both streams reporting `width` columns: exit code, stdout, stderr. */
async function commanderAt(args: string[], width: number): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const built = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut: (t) => (out += t), writeErr: (t) => (err += t) });
  const configure = (command: Command): void => {
    command.configureOutput({
      getOutHelpWidth: () => width,
      getErrHelpWidth: () => width,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });
    command.commands.forEach(configure);
  };
  configure(built.program);
  const code = await built.run(args);
  return { code, out, err };
}

/**
 * `assetgen <args>` on a pseudo-terminal whose width is 0 (`stty cols 0`: node-pty itself turns a
 * width of 0 into 80), through a shell that then says how it exited and waits for a key, so that
 * nothing the CLI wrote is lost when the terminal closes. Bounded: killed after 20 s.
 */
async function onZeroColumnTerminal(args: string[]): Promise<{ code: number; text: string }> {
  const script = 'stty cols 0 rows 0 && "$0" "$@"; echo "[assetgen exited $?]"; read -r _';
  const child = pty.spawn('/bin/sh', ['-c', script, process.execPath, BIN, ...args], {
    cols: 80,
    rows: 24,
    cwd: home.cwd,
    env: home.env as Record<string, string>,
  });
  let output = '';
  child.onData((data) => (output += data));
  const exited = new Promise<void>((resolve) => child.onExit(() => resolve()));
  const timer = setTimeout(() => child.kill(), 20_000);
  try {
    for (let waited = 0; !/\[assetgen exited \d+\]/.test(output); waited += 20) {
      if (waited > 15_000) throw new Error(`no exit reported within 15 s; terminal:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.write('\r');
    await exited;
  } finally {
    clearTimeout(timer);
  }
  const text = output.replace(ESCAPES, '').replace(/\r/g, '');
  const [, code] = /\[assetgen exited (\d+)\]/.exec(text)!;
  return { code: Number(code), text: text.slice(0, text.indexOf('[assetgen exited')) };
}

describe('help at a terminal width of 0', () => {
  it('every help screen is laid out as at 80 columns (descriptions beside their options, wrapped)', async () => {
    for (const words of commandPaths()) {
      const zero = await commanderAt([...words, '--help'], 0);
      const eighty = await commanderAt([...words, '--help'], 80);
      expect(zero, words.join(' ')).toEqual(eighty);
    }
    // The narrow layout still holds where the width is real.
    expect((await commanderAt(['build', '--help'], 40)).out).toContain('\n  --dry-run\n      print the plan');
    expect((await commanderAt(['build', '--help'], 0)).out).toContain(
      '\n  --dry-run                 print the plan and the estimated cost; call nothing\n',
    );
  });

  it("a group's help on stderr (`assetgen runs`, exit 2) too", async () => {
    const zero = await commanderAt(['runs'], 0);
    expect(zero.code).toBe(2);
    expect(zero).toEqual(await commanderAt(['runs'], 80));
    expect(zero.err).toMatch(/^Usage: assetgen runs \[options\] \[command\]\n/);
  });

  it('the screens rendered at build time are the 80-column ones for a terminal of 0 columns', () => {
    expect(helpWidth({ isTTY: true, columns: 0 })).toBe(80);
    expect(helpWidth({ isTTY: true, columns: 60 })).toBe(60);
    expect(helpWidth({ isTTY: false, columns: 0 })).toBe(80);
    for (const args of [['build', '--help'], ['--help'], ['help', 'video', 'create']]) {
      const text = precomputedHelp(args, { isTTY: true, columns: 0 });
      expect(text, args.join(' ')).toBeDefined();
      expect(text).toBe(precomputedHelp(args, { isTTY: false }));
    }
  });

  it.skipIf(process.platform === 'win32')('the binary on a terminal of 0 columns prints the help a pipe gets (80 columns)', async () => {
    for (const args of [['build', '--help'], ['--help'], ['mcp', '--help']]) {
      const piped = await runCli(args, { env: home.env, cwd: home.cwd });
      expect(piped.code).toBe(0);
      const terminal = await onZeroColumnTerminal(args);
      expect(terminal, args.join(' ')).toEqual({ code: 0, text: piped.stdout });
    }
  });
});
