// The help screens rendered at build time (dist/help-screens.json, answered by the entry without
// loading commander) are byte for byte what commander prints from the real command table, for every
// command, every way of asking for help, and every width they are served at; other command lines
// and widths are left to commander.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type * as ProgramModule from '../../src/program.cjs';
import type * as ScreensModule from '../../src/cli/help-screens.cjs';
import { runCli, tempHome } from '../support/cli.js';

const require = createRequire(import.meta.url);
const { buildProgram } = require('../../dist/program.cjs') as typeof ProgramModule;
const { HELP_SCREENS_FILE, requestedScreen, screenText } = require('../../dist/cli/help-screens.cjs') as typeof ScreensModule;
const screens = JSON.parse(fs.readFileSync(HELP_SCREENS_FILE, 'utf8')) as ScreensModule.HelpScreens;

/** What commander prints for `argv` on a stdout of `width` columns, with or without colours. */
async function commander(argv: string[], width: number, colours = false): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const built = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut: (t) => (out += t), writeErr: (t) => (err += t) });
  const configure = (command: Command): void => {
    command.configureOutput({ getOutHelpWidth: () => width, getOutHasColors: () => colours });
    command.commands.forEach(configure);
  };
  configure(built.program);
  const code = await built.run(argv);
  return { code, out, err };
}

/** Every command of the real table: its words below `assetgen`, and whether it has subcommands. */
function commands(): { words: string[]; parent: boolean }[] {
  const { program } = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut() {}, writeErr() {} });
  const list: { words: string[]; parent: boolean }[] = [];
  const walk = (command: Command, words: string[]): void => {
    list.push({ words, parent: command.commands.length > 0 });
    for (const sub of command.commands) walk(sub, [...words, sub.name()]);
  };
  walk(program, []);
  return list;
}

/** Every plain way of asking for the help of `words`. */
function requests(words: string[], parent: boolean): string[][] {
  const forms = [
    [...words, '--help'],
    [...words, '-h'],
  ];
  if (parent) forms.push([...words, 'help']);
  if (words.length > 0) forms.push([...words.slice(0, -1), 'help', words[words.length - 1]!]);
  // `help video create`, as `gh help pr create`: every word after help.
  if (words.length > 1) forms.push(['help', ...words]);
  return forms;
}

describe('help screens rendered at build time', () => {
  const all = commands();

  it('cover every command of the table, and nothing else', () => {
    expect(Object.keys(screens).sort()).toEqual(all.map(({ words }) => words.join(' ')).sort());
  });

  for (const { words, parent } of all) {
    const key = words.join(' ');
    it(`assetgen ${key || '(the program)'}: the same bytes as commander at every width served`, async () => {
      const screen = screens[key]!;
      expect(screen.parent).toBe(parent);
      const widths = [80, screen.from, screen.from + 1, 1000];
      for (const argv of requests(words, parent)) {
        expect(requestedScreen(argv, screens), argv.join(' ')).toBe(key);
        for (const width of widths) {
          const served = screenText(screen, width);
          expect(served, `width ${width}`).toBeDefined();
          const real = await commander(argv, width);
          expect({ code: real.code, err: real.err }).toEqual({ code: 0, err: '' });
          expect(served, `${argv.join(' ')} at ${width} columns`).toBe(real.out);
        }
      }
      // Colours change nothing (commander's default styles are plain); just below `from` a line wraps.
      expect((await commander([...words, '--help'], 80, true)).out).toBe(screenText(screen, 80));
      if (screen.from - 1 !== 80) {
        expect(screenText(screen, screen.from - 1)).toBeUndefined();
        expect((await commander([...words, '--help'], screen.from - 1)).out).not.toBe(screen.wide);
      }
    });
  }

  it('leaves every other command line to commander', () => {
    for (const argv of [
      [],
      ['generate'],
      ['generate', 'help'], // generate has no subcommands: "help" would be its prompt
      ['generate', 'sword', '--help'],
      ['help', 'auth', 'login', 'extra'],
      ['help', 'generate', 'extra'],
      ['help', 'video', 'nope'],
      ['video', 'help', 'create', 'extra'],
      ['auth', 'help', 'frobnicate'],
      ['frobnicate', '--help'],
      ['--json', '--help'],
      ['generate', '--', '--help'],
      ['help', 'help'],
      ['-h', 'generate'],
    ]) {
      expect(requestedScreen(argv, screens), argv.join(' ')).toBeUndefined();
    }
  });

  it("`help <group> <command>` is that command's help, from the screens and from commander alike (not the group's)", async () => {
    for (const words of [
      ['video', 'create'],
      ['runs', 'wait'],
      ['auth', 'login'],
    ]) {
      const wanted = (await commander([...words, '--help'], 80)).out;
      expect(wanted).toMatch(new RegExp(`^Usage: assetgen ${words.join(' ')} `));
      expect(requestedScreen(['help', ...words], screens)).toBe(words.join(' '));
      expect(screenText(screens[words.join(' ')]!, 80)).toBe(wanted);
      // Commander answers it at any width the screens were not rendered for.
      for (const width of [80, 77]) {
        const real = await commander(['help', ...words], width);
        expect({ code: real.code, err: real.err, out: real.out }).toEqual({
          code: 0,
          err: '',
          out: (await commander([...words, '--help'], width)).out,
        });
      }
    }
    // A word that is not a command of the group: an unknown command (exit 2), as `video help nope`
    // (test/commands/help-unknown-command.test.ts), not the group's help.
    const nope = await commander(['help', 'video', 'nope'], 80);
    expect(nope).toEqual({ ...(await commander(['video', 'help', 'nope'], 80)), code: 2 });
    expect(nope.err).toBe("error: unknown command 'nope': choose one of create, get, wait\nSee `assetgen video --help`.\n");
  });

  it("the binary: `assetgen help video create` and `help runs wait` print those commands' help, exit 0", async () => {
    const home = tempHome();
    try {
      for (const words of [
        ['video', 'create'],
        ['runs', 'wait'],
      ]) {
        const result = await runCli(['help', ...words], { env: home.env, cwd: home.cwd });
        expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
        expect(result.stdout).toBe(screenText(screens[words.join(' ')]!, 80));
      }
    } finally {
      home.remove();
    }
  });

  it('serves no width it was not rendered for', () => {
    const screen = screens['video create']!;
    expect(screen.from).toBeGreaterThan(81);
    expect(screenText(screen, 79)).toBeUndefined();
    expect(screenText(screen, 81)).toBeUndefined();
    expect(screenText(screen, 0)).toBeUndefined();
  });
});
