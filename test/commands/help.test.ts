// Every help screen ends with examples and shows the global options (the examples themselves run in
// test/commands/help-examples.test.ts).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ProgramModule from '../../src/program.cjs';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';

const require = createRequire(import.meta.url);
const { buildProgram, EXAMPLES, commandPath } = require('../../dist/program.cjs') as typeof ProgramModule;

let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  home = tempHome();
  env = home.env;
});
afterAll(() => home.remove());

function allCommands(): Command[] {
  const { program } = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut() {}, writeErr() {} });
  const list: Command[] = [];
  const walk = (command: Command): void => {
    list.push(command);
    command.commands.forEach(walk);
  };
  walk(program);
  return list;
}

describe('help', () => {
  const commands = allCommands();

  it('every command has examples and shows the global options', async () => {
    for (const command of commands) {
      const name = commandPath(command);
      expect(EXAMPLES[name], `examples for "${name}"`).toBeDefined();
      const help = await runInProcess([...name.split(' ').filter(Boolean), '--help'], { env, cwd: home.cwd });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/\nExamples:\n {2}\$ /);
      expect(help.stdout.trimEnd().split('\n').at(-1)).toMatch(/^ {2}\$ /);
      if (command.parent) expect(help.stdout, name).toContain('Global Options:');
    }
  });

  it('groups the commands in the top-level help', async () => {
    const help = await runInProcess(['--help'], { env, cwd: home.cwd });
    for (const heading of ['Generate:', 'Workflows:', 'Video:', 'Build:', 'Setup:', 'Mock:'])
      expect(help.stdout).toContain(`\n${heading}\n`);
  });

  it('-v, -V, --version and `assetgen version` agree', async () => {
    const expected = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
    for (const args of [['-V'], ['--version'], ['version']]) {
      expect((await runInProcess(args, { env, cwd: home.cwd })).stdout.trim()).toBe(expected);
    }
    expect(parseJson(await runInProcess(['version', '--json'], { env, cwd: home.cwd })).version).toBe(expected);
  });
});
