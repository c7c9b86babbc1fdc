// `assetgen help <group> <command>` is that command's help whatever global options come with it:
// help is help, not a JSON document (as gh's: `gh help` has no --json), so `--json help video
// create` prints the help of `video create` on stdout, exit 0, as `help video create --json` and
// `video create --help --json` do. It used to print the `video` group's help: the word after the
// group was dropped once an option came before `help`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, runInProcess, tempHome, type CliResult } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const cli = (args: string[]): Promise<CliResult> => runInProcess(args, { env: home.env, cwd: home.cwd });

describe('help with global options around it', () => {
  it("is the named command's help on stdout (exit 0), wherever --json and other global options are", async () => {
    for (const [words, lines] of [
      [
        ['video', 'create'],
        [
          ['--json', 'help', 'video', 'create'],
          ['help', '--json', 'video', 'create'],
          ['help', 'video', 'create', '--json'],
          ['--json', 'video', 'help', 'create'],
          ['-q', '--json', 'help', 'video', 'create'],
          ['--base-url', 'https://assets.example.com', 'help', 'video', 'create'],
        ],
      ],
      [
        ['runs', 'wait'],
        [
          ['--timeout', '5s', 'help', 'runs', 'wait'],
          ['--preview', 'help', 'runs', 'wait'],
          ['--preview', 'kitty', '--json', 'help', 'runs', 'wait'],
        ],
      ],
    ] as const) {
      const wanted = await cli([...words, '--help']);
      expect(wanted.stdout).toMatch(new RegExp(`^Usage: assetgen ${words.join(' ')} `));
      for (const args of lines) {
        const result = await cli([...args]);
        expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }, args.join(' ')).toEqual({
          code: 0,
          stderr: '',
          stdout: wanted.stdout,
        });
      }
    }
  });

  it('the binary: `assetgen --json help video create` is the help of `video create`', async () => {
    const wanted = await runCli(['video', 'create', '--help'], { env: home.env, cwd: home.cwd });
    const result = await runCli(['--json', 'help', 'video', 'create'], { env: home.env, cwd: home.cwd });
    expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({ code: 0, stderr: '', stdout: wanted.stdout });
    expect(result.stdout).toMatch(/^Usage: assetgen video create /);
  });
});
