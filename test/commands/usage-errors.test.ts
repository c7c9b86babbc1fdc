// Usage errors found while parsing the command line, in-process: a command group named without
// its command (with --json, one JSON line on stderr naming the commands to choose from, never
// nothing at all), and the bound of a count option (one bound, in every message that refuses it).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonError, runInProcess, tempHome, type CliResult } from '../support/cli.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const cli = (args: string[]): Promise<CliResult> => runInProcess(args, { env: home.env, cwd: home.cwd });

/** The one JSON line of a --json usage error: exit 2, stdout empty, nothing else on stderr. */
function usageError(result: CliResult, args: string[]): Record<string, any> {
  const label = `assetgen ${args.join(' ')}`;
  expect(result.code, label).toBe(2);
  expect(result.stdout, label).toBe('');
  expect(result.stderr.endsWith('\n'), label).toBe(true);
  expect(result.stderr.trimEnd().split('\n'), label).toHaveLength(1);
  const error = jsonError(result);
  expect(error, label).toMatchObject({ code: 'usage', exitCode: 2 });
  return error;
}

const TOP_LEVEL = [
  'auth',
  'generate',
  'agents',
  'workflows',
  'runs',
  'video',
  'jobs',
  'init',
  'build',
  'check',
  'pick',
  'report',
  'takes',
  'lock',
  'skills',
  'install',
  'mcp',
  'demo',
  'mock',
  'completion',
  'version',
];

describe('a command group without its command', () => {
  const groups: [string[], string[]][] = [
    [['--json'], TOP_LEVEL],
    [
      ['runs', '--json'],
      ['get', 'wait'],
    ],
    [
      ['video', '--json'],
      ['create', 'get', 'wait'],
    ],
    [
      ['auth', '--json'],
      ['login', 'status', 'logout'],
    ],
    [
      ['workflows', '-q', '--json'],
      ['list', 'run'],
    ],
    [['--json', 'lock'], ['merge']],
    [
      ['skills', '--json'],
      ['install', 'uninstall', 'list', 'update'],
    ],
  ];
  for (const [args, commands] of groups) {
    it(`assetgen ${args.join(' ')}: one JSON usage line on stderr naming ${commands.length === 1 ? commands[0] : `${commands.length} commands`}`, async () => {
      const error = usageError(await cli(args), args);
      expect(error.commands).toEqual(commands);
      expect(error.message).toMatch(/^missing command after 'assetgen[\w ]*': choose one of /);
      for (const name of commands) expect(error.message).toContain(name);
      const group = ['assetgen', ...args.filter((arg) => !arg.startsWith('-'))].join(' ');
      expect(error.message).toContain(`'${group}'`);
      expect(error.hint).toBe(`See \`${group} --help\`.`);
    });
  }

  it('`help <unknown>` with --json says the command is unknown, and names the ones there are', async () => {
    const top = usageError(await cli(['help', 'bogus', '--json']), ['help', 'bogus', '--json']);
    expect(top.message).toMatch(/^unknown command 'bogus': choose one of auth, generate/);
    expect(top.commands).toEqual(TOP_LEVEL);
    const runs = usageError(await cli(['runs', 'help', 'bogus', '--json']), ['runs', 'help', 'bogus', '--json']);
    expect(runs).toMatchObject({ message: "unknown command 'bogus': choose one of get, wait", commands: ['get', 'wait'] });
  });

  it('without --json, the group help on stderr (exit 2); a help request with --json is still the help on stdout (exit 0)', async () => {
    const plain = await cli(['runs']);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(/^Usage: assetgen runs \[options\] \[command\]/);
    expect(plain.stderr).not.toContain('{"error"');

    for (const args of [
      ['runs', '--help', '--json'],
      ['--json', 'help', 'runs'],
    ]) {
      const help = await cli(args);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout, args.join(' ')).toMatch(/^Usage: assetgen runs \[options\] \[command\]/);
      expect(help.stderr, args.join(' ')).toBe('');
    }
  });

  it('a usage error of a subcommand still reads as its own, not as a missing command', async () => {
    const error = usageError(await cli(['runs', 'get', '--json']), ['runs', 'get', '--json']);
    expect(error.message).toMatch(/missing required argument 'runId'/);
    expect(error.commands).toBeUndefined();
  });
});

describe('an unknown command with --help', () => {
  it('is the unknown command (exit 2), not the nearest help (exit 0); a known one still gets its help', async () => {
    for (const args of [
      ['nope', '--help'],
      ['runs', 'nope', '-h'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain("unknown command 'nope'");
      expect(result.stdout).toBe('');
    }
    for (const args of [
      ['runs', '--help'],
      ['generate', '-h'],
      ['runs', 'wait', '--help'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/^Usage: assetgen /);
    }
  });
});

describe('count options: one bound in every message', () => {
  it('jobs -n and build -j refuse 0, negatives, fractions and words alike: "a whole number ≥ 1"', async () => {
    for (const [option, flag] of [
      ['jobs', '-n'],
      ['build', '-j'],
    ] as const) {
      for (const value of ['0', '-1', '1.5', '1e3', 'x', '']) {
        const args = [option, flag, value];
        const result = await cli(args);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr, args.join(' ')).toContain('Use a whole number ≥ 1.');
        expect(result.stderr, args.join(' ')).not.toContain('≥ 0');
        const error = usageError(await cli([...args, '--json']), [...args, '--json']);
        expect(error.message).toMatch(/Use a whole number ≥ 1\.$/);
      }
    }
  });

  it('jobs -n 1 is taken', async () => {
    const result = await cli(['jobs', '-n', '1', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ jobs: [] });
  });

  it('the counts that may be 0 still say ≥ 0 (mock --credits)', async () => {
    const result = await cli(['mock', '--credits', '-1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Use a whole number ≥ 0.');
  });
});
