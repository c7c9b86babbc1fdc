// Output piped to a slow reader arrives whole: the process ends when stdout has drained, not when the
// command returns (a process.exit there cut a 1.9 MB --json at the pipe's 64 KiB, exit 0). And once
// the command has ended, nothing keeps the process alive: a handle left open is a bug, and the
// entry's safety net still ends the process, with the command's exit code, instead of hanging.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { BIN, collect, runCliIntoSlowReader, spawnCli, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;

beforeAll(async () => {
  mock = await startMock({ credits: 5000 });
});
afterAll(() => mock.close());

/**
 * A temp home of this test's own (the tests run concurrently: each mostly waits on its reader),
 * with an assetgen.yaml of `assets` image assets a0, a1, …. Removed when `test` finishes (its own
 * hook: the global one of a concurrent test may belong to another).
 */
function project(test: TestContext, assets = 0) {
  const home = tempHome();
  test.onTestFinished(() => home.remove());
  const ids = Array.from({ length: assets }, (_, i) => `  - id: a${i}\n    prompt: item number ${i}\n`);
  fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), `defaults:\n  agent: sprite-artist\n  out: assets/\nassets:\n${ids.join('')}`);
  const keyEnv = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
  // --verbose: were a handle left open, the safety net would say so on stderr.
  const slowly = (args: string[]) => runCliIntoSlowReader([...args, '--verbose'], { env: keyEnv, cwd: home.cwd });
  return { home, keyEnv, slowly };
}

describe.concurrent('output piped to a reader that waits a second', () => {
  // 1,500 assets: a document several times a pipe's 64 KiB, which is what the cut needs to show, at
  // a fraction of 5,000's CPU (that size, with three more CLIs beside it, outlasted the bound on a
  // machine oversubscribed 3-4× in a flake hunt).
  it('build --dry-run --json of 1,500 assets: every byte, one document', async (test) => {
    const { slowly } = project(test, 1500);
    const result = await slowly(['build', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdoutBytes.length).toBeGreaterThan(4 * 65_536); // far beyond a pipe's 64 KiB
    const doc = JSON.parse(result.stdout) as { items: { id: string }[]; counts: Record<string, number> };
    expect(doc.items).toHaveLength(1500);
    expect(doc.items.at(-1)!.id).toBe('a1499');
    expect(doc.counts).toMatchObject({ new: 1500 });
    expect(result.stderr).not.toMatch(/still open/);
  });

  it('the plain table of build --dry-run, 2,000 rows: every row', async (test) => {
    const { slowly } = project(test, 2000); // ~95 KiB of rows: more than a pipe holds
    const result = await slowly(['build', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout.split('\n');
    expect(rows.pop()).toBe(''); // the last row ends with a newline
    expect(rows).toHaveLength(2000);
    expect(rows.map((row) => row.split('\t')[0])).toEqual(Array.from({ length: 2000 }, (_, i) => `a${i}`));
    expect(result.stderr).not.toMatch(/still open/);
  });

  it('generate --json and generate -o - (bytes)', async (test) => {
    const { slowly } = project(test);
    const [json, bytes] = await Promise.all([
      slowly(['generate', 'rusty sword', '--agent', 'sprite-artist', '--json', '-o', 'out/']),
      slowly(['generate', 'rusty sword', '--agent', 'sprite-artist', '-o', '-']),
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ credits: { charged: expect.any(Number) } });
    expect(bytes.code, bytes.stderr).toBe(0);
    expect(bytes.stdoutBytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.stdoutBytes.subarray(-8, -4).toString('latin1')).toBe('IEND'); // the PNG's last chunk arrived
    for (const result of [json, bytes]) expect(result.stderr).not.toMatch(/still open/);
  });

  it('a failure keeps its exit code and its one JSON error line', async (test) => {
    const { home } = project(test, 3);
    const result = await runCliIntoSlowReader(['build', '--dry-run', '--json'], { env: home.env, cwd: home.cwd });
    expect(result.code).toBe(4); // no service configured
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr.trim())).toMatchObject({ error: { exitCode: 4 } });
  });
});

describe.concurrent('a reader that goes away early', () => {
  it('build --dry-run --json | head -c: exits 141 quietly, as SIGPIPE would', async (test) => {
    // 2,000 assets: an ~800 KB document, past what the child's stdout holds unread (a socket pair
    // here, ~200 KB of buffer: at 500 assets it all fit and the run ended 0), so the reader is gone
    // while it is written. The bound is 30 s: at a load of 20 on two cores it outlasted 15.
    const { home, keyEnv } = project(test, 2000);
    const child = spawnCli(['build', '--dry-run', '--json'], { env: keyEnv, cwd: home.cwd });
    child.stdout!.once('data', () => child.stdout!.destroy()); // the first chunk, then gone
    const result = await collect(child, 30_000);
    expect(result.code).toBe(141);
    expect(result.stderr).not.toMatch(/EPIPE|at .*\.c?js/);
  });
});

describe.concurrent('the safety net for a handle left open', () => {
  it('ends the process with the command’s exit code, naming what was open under --verbose', async (test) => {
    const { home, keyEnv } = project(test);
    const leak = path.join(home.home, 'leak.cjs');
    fs.writeFileSync(leak, 'setInterval(() => {}, 1000);\n'); // a handle the command never closes
    const run = (args: string[]) =>
      collect(spawn(process.execPath, ['--require', leak, BIN, ...args], { env: keyEnv, cwd: home.cwd, stdio: 'pipe' }), 15_000);
    const [ok, usage] = await Promise.all([run(['completion', 'bash', '--verbose']), run(['frobnicate'])]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('complete');
    expect(ok.stderr).toMatch(/still open 2000 ms after the command ended \(.*Timeout.*\); exiting/);
    expect(usage.code).toBe(2);
    expect(usage.stderr).not.toMatch(/still open/); // said under --verbose only
  });
});
