// `--version --json` (and -V, in either order, after a command too) prints the document `assetgen
// version --json` prints — one source, commands/version.ts — not the bare line; without --json the
// line is unchanged. The real binary where the entry (cli.cts) decides: a bare --version, -V, -v or
// `version` it answers itself, and `-v` it reads as -V; the command table answers the rest, the same
// in this process (runInProcess).
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson, runCli, runInProcess, tempHome } from '../support/cli.js';

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const cli = (args: string[]) => runCli(args, { env: home.env, cwd: home.cwd });
/** Answered by the command table: in this process. */
const table = (args: string[]) => runInProcess(args, { env: home.env, cwd: home.cwd });

describe('assetgen --version --json', () => {
  it('prints the document of `assetgen version --json`, exit 0, nothing on stderr', async () => {
    const command = await table(['version', '--json']);
    expect(command.code, command.stderr).toBe(0);
    const document = parseJson(command);
    expect(document).toEqual({ version, node: process.versions.node });
    for (const [args, run] of [
      [['--version', '--json'], table],
      [['--json', '--version'], table],
      [['-V', '--json'], table],
      [['-v', '--json'], cli],
      [['--json', '-v'], cli],
      [['build', '--json', '--version'], table],
    ] as const) {
      const result = await run([...args]);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stderr, args.join(' ')).toBe('');
      expect(parseJson(result), args.join(' ')).toEqual(document);
    }
  });

  it('without --json, the bare version line as before', async () => {
    for (const [args, run] of [
      [['--version'], cli],
      [['-V'], cli],
      [['-v'], cli],
      [['version'], cli],
      [['build', '--version'], table],
    ] as const) {
      const result = await run([...args]);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toBe(`${version}\n`);
      expect(result.stderr, args.join(' ')).toBe('');
    }
  });
});
