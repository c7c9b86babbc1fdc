// Prompts through a real pseudo-terminal: the masked key prompt and the 180-credit confirmation.
import fs from 'node:fs';
import path from 'node:path';
import pty from '@lydell/node-pty';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, startMock, tempHome, type MockHandle } from './harness.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;

beforeAll(async () => {
  mock = await startMock({});
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
  await mock.config({ videoPollAfterMs: 20 });
  home = tempHome();
});
afterEach(() => home.remove());

interface Session {
  output(): string;
  waitFor(text: string): Promise<void>;
  write(data: string): void;
  exit: Promise<number>;
}

function spawnPty(args: string[], env: NodeJS.ProcessEnv): Session {
  const child = pty.spawn(process.execPath, [BIN, ...args], { cols: 120, rows: 30, cwd: home.cwd, env: env as Record<string, string> });
  let output = '';
  child.onData((data) => (output += data));
  const exit = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const timer = setTimeout(() => child.kill(), 20_000);
  void exit.then(() => clearTimeout(timer));
  return {
    output: () => output,
    write: (data) => child.write(data),
    async waitFor(text) {
      const deadline = Date.now() + 10_000;
      while (!output.includes(text)) {
        if (Date.now() > deadline) throw new Error(`"${text}" not shown within 10 s; screen:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    exit,
  };
}

describe('prompts on a terminal', () => {
  it('asks for the API key with a masked prompt and stores it', async () => {
    const session = spawnPty(['auth', 'login', '--base-url', mock.url], home.env);
    await session.waitFor('API key');
    session.write(`${mock.apiKey}\r`);
    expect(await session.exit).toBe(0);
    expect(session.output()).not.toContain(mock.apiKey);
    const stored = JSON.parse(fs.readFileSync(path.join(home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json'), 'utf8'));
    expect(stored).toMatchObject({ apiKey: mock.apiKey, baseUrl: mock.url });
  });

  it('confirms the 180-credit charge before a video job; "no" charges nothing', async () => {
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
    const declined = spawnPty(['video', 'create', 'torch'], env);
    await declined.waitFor('180 credits');
    declined.write('n\r');
    // A "no" is a quiet cancel (exit 2, as gh does), not an error.
    expect(await declined.exit).toBe(2);
    expect(declined.output()).toContain('Cancelled: no video job was submitted and nothing was charged.');
    expect(declined.output()).not.toContain('Error:');
    let state = (await (await fetch(`${mock.url}/__mock/state`)).json()) as { ledger: { amount: number }[] };
    expect(state.ledger.filter((entry) => entry.amount === -180)).toHaveLength(0);

    const accepted = spawnPty(['video', 'create', 'torch', '--interval', '20ms'], env);
    await accepted.waitFor('180 credits');
    accepted.write('y\r');
    expect(await accepted.exit).toBe(0);
    state = (await (await fetch(`${mock.url}/__mock/state`)).json()) as { ledger: { amount: number }[] };
    expect(state.ledger.filter((entry) => entry.amount === -180)).toHaveLength(1);
  });
});
