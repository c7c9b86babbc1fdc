// What only a real process shows: help and exit codes from the binary, and Ctrl-C as a signal.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect, runCli, spawnCli, tempHome, waitForStderr } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { CAN_SIGNAL_CHILDREN, runsHere } from '../support/platform.js';

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

  it('exits 141 without a stack trace when the reader of stdout goes away (`--help | head`)', async () => {
    const child = spawnCli(['--help'], { env: keyEnv, cwd: home.cwd });
    child.stdout!.destroy(); // the reader is gone before the first byte
    const stderr: Buffer[] = [];
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(141);
    expect(Buffer.concat(stderr).toString()).not.toMatch(/EPIPE|at .*\.c?js/);
  });

  it('exits 2 on an unknown command or option', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['generate', 'x', '--agent', 'sprite-artist', '--bogus'])).code).toBe(2);
    expect((await cli(['generate', 'x'])).code).toBe(2); // --agent is required
  });
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
