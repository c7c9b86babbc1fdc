// Help asked of a command group for a word that is not one of its commands (`assetgen help runs
// nope`, `assetgen runs help nope`) is an unknown command, as `assetgen runs nope` is, and as gh
// reports `gh help pr nope`: a usage error (exit 2) naming the word and the group's commands, and
// where its help is — never the group's help as if the word had been understood. Every group, the
// program included; the --json line says the same. In-process, and once through the binary.
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as ProgramModule from '../../src/program.cjs';
import { jsonError, runCli, runInProcess, tempHome, type CliResult } from '../support/cli.js';

const require = createRequire(import.meta.url);
const { buildProgram } = require('../../dist/program.cjs') as typeof ProgramModule;

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const cli = (args: string[]): Promise<CliResult> => runInProcess(args, { env: home.env, cwd: home.cwd });

/** Every command with commands of its own, by its words below `assetgen` ([] is the program), with those commands. */
function groups(): { words: string[]; commands: string[] }[] {
  const { program } = buildProgram({ version: '0.0.0', execute: async () => 0, writeOut() {}, writeErr() {} });
  const found: { words: string[]; commands: string[] }[] = [];
  const walk = (command: Command, words: string[]): void => {
    if (command.commands.length === 0) return;
    found.push({ words, commands: command.commands.map((sub) => sub.name()) });
    for (const sub of command.commands) walk(sub, [...words, sub.name()]);
  };
  walk(program, []);
  return found;
}

/** What `assetgen <group…> nope`'s help request must print on stderr: the error line, then where the group's help is. */
const expectedError = (words: string[], commands: string[]): string =>
  `error: unknown command 'nope': choose one of ${commands.join(', ')}\nSee \`${['assetgen', ...words].join(' ')} --help\`.\n`;

describe('help of a word that is not a command of the group', () => {
  it('finds the groups it is about (the program, auth, workflows, runs, video, lock, skills)', () => {
    expect(groups().map(({ words }) => words.join(' '))).toEqual(['', 'auth', 'workflows', 'runs', 'video', 'lock', 'skills']);
  });

  for (const { words, commands } of groups()) {
    const group = ['assetgen', ...words].join(' ');
    // `assetgen help nope` for the program; `help runs nope` and `runs help nope` for a group.
    const lines = [['help', ...words, 'nope'], ...(words.length > 0 ? [[...words, 'help', 'nope']] : [])];
    it(`${group}: ${lines.map((line) => `\`${line.join(' ')}\``).join(' and ')} ${lines.length > 1 ? 'are' : 'is'} an unknown command (exit 2)`, async () => {
      for (const args of lines) {
        const result = await cli(args);
        expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }, args.join(' ')).toEqual({
          code: 2,
          stdout: '',
          stderr: expectedError(words, commands),
        });
        // Not the group's help: the error is the whole answer, and the last thing on the screen.
        expect(result.stderr).not.toContain('Usage:');

        // With --json (before or after the words): the same usage error, as one JSON line.
        for (const json of [
          ['--json', ...args],
          [...args, '--json'],
        ]) {
          const answer = await cli(json);
          expect({ code: answer.code, stdout: answer.stdout }, json.join(' ')).toEqual({ code: 2, stdout: '' });
          expect(answer.stderr.trimEnd().split('\n'), json.join(' ')).toHaveLength(1);
          expect(jsonError(answer), json.join(' ')).toEqual({
            code: 'usage',
            message: `unknown command 'nope': choose one of ${commands.join(', ')}`,
            hint: `See \`${group} --help\`.`,
            commands,
            exitCode: 2,
          });
        }
      }
    });
  }

  it('a known command still gets its help (exit 0), and a group named alone still prints its help on stderr (exit 2)', async () => {
    for (const args of [
      ['help', 'runs', 'wait'],
      ['runs', 'help', 'wait'],
      ['help', 'runs'],
      ['help', 'lock', 'merge'],
    ]) {
      const result = await cli(args);
      expect({ code: result.code, stderr: result.stderr }, args.join(' ')).toEqual({ code: 0, stderr: '' });
      expect(result.stdout, args.join(' ')).toMatch(/^Usage: assetgen (runs|lock)/);
    }
    const alone = await cli(['runs']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^Usage: assetgen runs \[options\] \[command\]/);
  });

  it('the binary says the same', async () => {
    for (const args of [
      ['help', 'video', 'nope'],
      ['video', 'help', 'nope'],
    ]) {
      const result = await runCli(args, { env: home.env, cwd: home.cwd });
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }, args.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: expectedError(['video'], ['create', 'get', 'wait']),
      });
    }
  });
});
