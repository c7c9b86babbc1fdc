// One style for the lines of trouble on stderr, whoever prints them: `error: …` and `warning: …`,
// lowercase, as commander, git and cargo print them (ui/labels.cts). Commander's usage errors, the
// executor's failures (a usage error of assetgen's own, an unknown-credentials failure), and a
// warning all start with their label; no line says `Error:` or `Warning:`. The command table in this
// process (runInProcess: the binary's own, with its writers), and the binary once for each label.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, runInProcess, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const cli = (args: string[], env: NodeJS.ProcessEnv = home.env) => runInProcess(args, { env, cwd: home.cwd });
const binary = (args: string[], env: NodeJS.ProcessEnv = home.env) => runCli(args, { env, cwd: home.cwd });
const capitalised = /^(Error|Warning|ERROR|WARNING):/m;

describe('error and warning labels', () => {
  it("commander's usage errors and assetgen's own failures both start `error: `", async () => {
    fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), 'assets:\n  - id: sword\n    promt: x\n');
    const spawned = await binary(['--bogus']);
    expect(spawned.code).toBe(2);
    expect(spawned.stderr.split('\n')[0]).toBe("error: unknown option '--bogus'");
    for (const [args, first] of [
      [['--bogus'], "error: unknown option '--bogus'"],
      [['generate', 'x'], "error: required option '-a, --agent <id>' not specified"],
      [['frobnicate'], "error: unknown command 'frobnicate'"],
      [['build', '--dry-run', '--mock'], 'error: assetgen.yaml:2:5: assets[0].prompt: missing prompt'],
      [['init'], 'error: assetgen.yaml already exists; assetgen init never replaces it.'],
    ] as const) {
      const result = await cli([...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0], args.join(' ')).toContain(first);
      expect(result.stderr, args.join(' ')).toMatch(/^error: \S/);
      expect(result.stderr, args.join(' ')).not.toMatch(capitalised);
    }
    const refused = await cli(['agents'], { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: 'ag_live_wrong' });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^error: \S/);
    expect(refused.stderr).not.toMatch(capitalised);
  });

  it('a warning starts `warning: `', async () => {
    // Agents listed with a session are cached; with only a key, the cached list is shown with a warning.
    const session = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_SESSION: mock.sessionCookie };
    expect((await cli(['agents'], session)).code).toBe(0);
    for (const run of [cli, binary]) {
      const result = await run(['agents'], { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey });
      expect(result.stderr).toMatch(/^warning: \S/m);
      expect(result.stderr).not.toMatch(capitalised);
    }
  });
});
