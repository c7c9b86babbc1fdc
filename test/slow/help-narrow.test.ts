// Help on a narrow terminal: every line fits the terminal's width. Commander wraps a description
// beside its option only while that column is wide enough (its default, 40 columns, gave up below
// about 67 for `build --help`); narrower, the description goes under its option. The one exception
// is an example command line (`  $ assetgen …`), never broken so that it pastes as it is; and on
// `mcp --help` the MCP client configurations (a command, a JSON or TOML line), for the same reason.
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ProgramModule from '../../src/program.cjs';
import { commandPaths, tempHome } from '../support/cli.js';
import { spawnPty } from '../support/pty.js';

const require = createRequire(import.meta.url);
const { buildProgram } = require('../../dist/program.cjs') as typeof ProgramModule;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences a terminal gets
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]/g;

/** Lines allowed past the width: examples, and mcp's client configurations (pasted as they are). */
const PASTED_AS_IS = /^ {2}\$ |^ {4}(claude mcp add |\{"|\[mcp_servers)/;

/** The lines of `text` wider than `width` columns, but for those pasted as they are. */
const overflowing = (text: string, width: number): string[] =>
  text.split('\n').filter((line) => line.length > width && !PASTED_AS_IS.test(line));

let home: ReturnType<typeof tempHome>;
beforeAll(() => {
  home = tempHome();
});
afterAll(() => home.remove());

/** `assetgen <args>` on a pseudo-terminal `cols` wide: what it wrote, line by line (ANSI and CR stripped). */
async function onTerminal(args: string[], cols: number): Promise<{ code: number; text: string }> {
  const session = spawnPty(args, { env: home.env, cwd: home.cwd, cols });
  const code = await session.exit;
  const text = session.output().replace(ESCAPES, '').replace(/\r/g, '');
  return { code, text };
}

/** What commander prints for `assetgen <words> --help` on a stdout `width` columns wide. */
async function helpAt(words: string[], width: number): Promise<string> {
  let out = '';
  const built = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut: (t) => (out += t), writeErr() {} });
  const configure = (command: Command): void => {
    command.configureOutput({ getOutHelpWidth: () => width, getOutHasColors: () => false });
    command.commands.forEach(configure);
  };
  configure(built.program);
  expect(await built.run([...words, '--help'])).toBe(0);
  return out;
}

describe('help on a narrow terminal', () => {
  for (const cols of [60, 40]) {
    for (const args of [['generate', '--help'], ['build', '--help'], ['--help']]) {
      it(`assetgen ${args.join(' ')} on a ${cols}-column terminal: no line past ${cols} columns but the examples`, async () => {
        const { code, text } = await onTerminal(args, cols);
        expect(code).toBe(0);
        expect(text).toContain('Options:');
        expect(overflowing(text, cols)).toEqual([]);
        // Every description is there, wrapped rather than cut.
        expect(text.replace(/\s+/g, ' ')).toContain('print exactly one JSON document on stdout');
      });
    }
  }

  it("every help screen fits 60 and 40 columns but its examples (and mcp's client configurations)", async () => {
    for (const words of commandPaths()) {
      for (const width of [60, 40]) expect(overflowing(await helpAt(words, width), width), `${words.join(' ')} at ${width}`).toEqual([]);
    }
  });

  it('descriptions stay beside their options down to 60 columns, and go under them at 40', async () => {
    expect(await helpAt(['build'], 80)).toContain('\n  --dry-run                 print the plan and the estimated cost; call nothing\n');
    expect(await helpAt(['build'], 60)).toContain(
      '\n  --dry-run                 print the plan and the estimated\n                            cost; call nothing\n',
    );
    expect(await helpAt(['build'], 40)).toContain('\n  --dry-run\n      print the plan and the estimated\n      cost; call nothing\n');
    expect(await helpAt(['workflows', 'run'], 40)).toMatch(/^Usage: assetgen workflows run \[options\]\n {7}<id>\n/);
  });
});
