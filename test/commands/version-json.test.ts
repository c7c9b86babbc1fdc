// `--version --json` (and -V, in either order, after a command too) prints the document `assetgen
// version --json` prints — one source, commands/version.ts — not the bare line; without --json the
// line is unchanged. The real binary: the entry (cli.cts) answers a bare --version itself.
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson, runCli, tempHome } from '../support/cli.js';

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const cli = (args: string[]) => runCli(args, { env: home.env, cwd: home.cwd });

describe('assetgen --version --json', () => {
  it('prints the document of `assetgen version --json`, exit 0, nothing on stderr', async () => {
    const command = await cli(['version', '--json']);
    expect(command.code, command.stderr).toBe(0);
    const document = parseJson(command);
    expect(document).toEqual({ version, node: process.versions.node });
    for (const args of [
      ['--version', '--json'],
      ['--json', '--version'],
      ['-V', '--json'],
      ['-v', '--json'],
      ['--json', '-v'],
      ['build', '--json', '--version'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stderr, args.join(' ')).toBe('');
      expect(parseJson(result), args.join(' ')).toEqual(document);
    }
  });

  it('without --json, the bare version line as before', async () => {
    for (const args of [['--version'], ['-V'], ['-v'], ['version'], ['build', '--version']]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toBe(`${version}\n`);
      expect(result.stderr, args.join(' ')).toBe('');
    }
  });
});
