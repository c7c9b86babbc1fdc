// What only a real process shows: help and exit codes from the binary, a reader that went away,
// and Ctrl-C as a signal.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, collect, runCli, spawnCli, tempHome, waitForStderr } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { CAN_SIGNAL_CHILDREN, HAS_FIFOS, runsHere } from '../support/platform.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let keyEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  mock = await startMock({ credits: 5000 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
  await mock.config({ credits: 5000, faults: { rate: 0 }, videoOutcome: 'succeed', videoPollAfterMs: 20 });
  home = tempHome();
  keyEnv = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
});
afterEach(() => home.remove());

const cli = (args: string[], env: NodeJS.ProcessEnv = keyEnv, input?: string) => runCli(args, { env, cwd: home.cwd, input });
const charges = async (amount: number) => (await mock.state()).ledger.filter((entry) => entry.amount === amount).length;

describe('help and version', () => {
  it('lists every command and prints the version', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const name of ['auth', 'generate', 'agents', 'workflows', 'runs', 'video', 'jobs', 'demo', 'mock', 'skills', 'install']) {
      expect(help.stdout).toContain(name);
    }
    const version = await cli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 on an unknown command or option', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['generate', 'x', '--agent', 'sprite-artist', '--bogus'])).code).toBe(2);
    expect((await cli(['generate', 'x'])).code).toBe(2); // --agent is required
  });
});

/**
 * Runs the binary with its stdout or stderr on an OS pipe (a FIFO) whose reader closed before the
 * CLI started: its first write there fails with EPIPE, however fast or slow either side is. The
 * other stream is collected.
 */
async function runIntoClosedPipe(args: string[], closed: 'stdout' | 'stderr'): Promise<{ code: number | null; other: string }> {
  const fifo = path.join(home.home, `closed-${closed}`);
  execFileSync('mkfifo', [fifo]);
  // A reader must be there for the writing end to open without blocking; then it goes away.
  const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writer = fs.openSync(fifo, fs.constants.O_WRONLY);
  fs.closeSync(reader);
  let child;
  try {
    child = spawn(process.execPath, [BIN, ...args], {
      env: keyEnv,
      cwd: home.cwd,
      stdio: ['ignore', closed === 'stdout' ? writer : 'pipe', closed === 'stderr' ? writer : 'pipe'],
    });
  } finally {
    fs.closeSync(writer); // the child holds the only writing end
  }
  const other: Buffer[] = [];
  (closed === 'stdout' ? child.stderr : child.stdout)!.on('data', (chunk: Buffer) => other.push(chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  clearTimeout(timer);
  return { code, other: Buffer.concat(other).toString() };
}

describe.runIf(runsHere('a reader that went away', HAS_FIFOS, 'no FIFOs (mkfifo) on Windows'))('a reader that went away', () => {
  // Every way out: the version fast path, the precomputed help, the command table (a command's
  // result, commander's own output). Each writes into a pipe nobody reads any more.
  for (const args of [['--version'], ['-v'], ['-V'], ['version'], ['version', '--json'], ['--help'], ['completion', 'bash']]) {
    it(`\`assetgen ${args.join(' ')} | true\` exits 141 without a stack trace`, async () => {
      const result = await runIntoClosedPipe(args, 'stdout');
      expect(result.code, result.other).toBe(141);
      expect(result.other).toBe('');
    });
  }

  for (const args of [
    ['runs', '--json'],
    ['jobs', '-n', '0'],
  ]) {
    it(`assetgen ${args.join(' ')} with stderr into a pipe nobody reads exits 141, stdout empty`, async () => {
      const result = await runIntoClosedPipe(args, 'stderr');
      expect(result.code).toBe(141);
      expect(result.other).toBe('');
    });
  }
});

describe.runIf(runsHere('signals', CAN_SIGNAL_CHILDREN, 'a child killed with SIGINT is ended outright, its handler never runs'))(
  'signals',
  () => {
    it('on Ctrl-C leaves the job alone, prints the resume command, exits 130; resuming completes with one charge', async () => {
      await mock.config({ videoSteps: 40 });
      const child = spawnCli(['video', 'create', 'slow dragon', '--yes', '--interval', '50ms'], { env: keyEnv, cwd: home.cwd });
      const done = collect(child, 20_000);
      await waitForStderr(child, 'Submitted video job');
      child.kill('SIGINT');
      const interrupted = await done;
      expect(interrupted.code).toBe(130);
      const match = /assetgen video wait (vid_\w+)/.exec(interrupted.stderr);
      expect(match).not.toBeNull();

      await mock.config({ videoSteps: 2 });
      const resumed = await cli(['video', 'wait', match![1]!, '--interval', '20ms']);
      expect(resumed.code).toBe(0);
      expect(await charges(-180)).toBe(1);
    });
  },
);
