// End-to-end harness: the real CLI (bin/assetgen.js → dist/) spawned without a TTY against the real
// bundled mock on an ephemeral loopback port, with HOME and every assetgen directory in a temp dir.
import { startMockServer } from '../../src/mock/index.js';

export interface MockHandle {
  url: string;
  apiKey: string;
  sessionCookie: string;
  close(): Promise<void>;
  state(): Promise<MockState>;
  config(settings: Record<string, unknown>): Promise<void>;
}

export interface MockState {
  credits: number;
  ledger: { amount: number; reason: string }[];
  [key: string]: unknown;
}

export async function startMock(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockHandle> {
  const mock = await startMockServer(options);
  return {
    ...mock,
    async state() {
      const response = await fetch(`${mock.url}/__mock/state`);
      return (await response.json()) as MockState;
    },
    async config(settings) {
      const response = await fetch(`${mock.url}/__mock/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(settings),
      });
      if (!response.ok) throw new Error(`mock config failed: ${response.status} ${await response.text()}`);
    },
  };
}

// The CLI runners and temp homes live in test/support/cli.ts; re-exported for the suites here.
export { BIN, collect, parseJson, runCli, spawnCli, tempHome, waitForStderr, type CliOptions, type CliResult } from '../support/cli.js';
