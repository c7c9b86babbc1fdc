// Through a real pseudo-terminal: the masked key prompt and the 180-credit confirmation,
// backing out of each with Ctrl-C or Escape, plain output on TERM=dumb, and inline previews.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEYS, spawnPty as spawnPty_ } from '../support/pty.js';
import { runCli, tempHome } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

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

const spawnPty = (args: string[], env: NodeJS.ProcessEnv) => spawnPty_(args, { env, cwd: home.cwd });

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
    expect(declined.output()).not.toContain('error:');
    let state = (await (await fetch(`${mock.url}/__mock/state`)).json()) as { ledger: { amount: number }[] };
    expect(state.ledger.filter((entry) => entry.amount === -180)).toHaveLength(0);

    const accepted = spawnPty(['video', 'create', 'torch', '--interval', '20ms'], env);
    await accepted.waitFor('180 credits');
    accepted.write('y\r');
    expect(await accepted.exit).toBe(0);
    state = (await (await fetch(`${mock.url}/__mock/state`)).json()) as { ledger: { amount: number }[] };
    expect(state.ledger.filter((entry) => entry.amount === -180)).toHaveLength(1);
  });

  it('confirms the N paid calls of --variants N before the first; "no" charges nothing, "yes" pays N', async () => {
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
    const generations = async () =>
      ((await (await fetch(`${mock.url}/__mock/state`)).json()) as { ledger: { reason: string }[] }).ledger.filter((entry) =>
        entry.reason.startsWith('generate '),
      );
    const declined = spawnPty(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '3', '-o', 'bat.png'], env);
    await declined.waitFor('3 takes are 3 paid calls');
    declined.write('n\r');
    expect(await declined.exit).toBe(2);
    expect(declined.output()).toContain('Cancelled: no take was made and nothing was charged.');
    expect(await generations()).toHaveLength(0);

    const accepted = spawnPty(['generate', 'bat', '--agent', 'sprite-artist', '--variants', '3', '-o', 'bat.png'], env);
    await accepted.waitFor('3 takes are 3 paid calls');
    accepted.write('y\r');
    expect(await accepted.exit).toBe(0);
    expect(await generations()).toHaveLength(3);
    for (const k of [1, 2, 3]) expect(fs.existsSync(path.join(home.cwd, `bat-${k}.png`))).toBe(true);
  });

  for (const [name, key] of [
    ['Ctrl-C', KEYS.ctrlC],
    ['Escape', KEYS.escape],
  ] as const) {
    it(`${name} at the API key prompt exits 130, stores nothing`, async () => {
      const session = spawnPty(['auth', 'login', '--base-url', mock.url], { ...home.env });
      await session.waitFor('API key');
      session.write(key);
      expect(await session.exit).toBe(130);
      expect(session.output()).toContain('Nothing was changed.');
      expect(session.output()).not.toContain('bug in assetgen');
      expect(fs.existsSync(path.join(home.env.ASSETGEN_CONFIG_DIR!, 'credentials.json'))).toBe(false);
    });

    it(`${name} at the 180-credit confirmation exits 130 and charges nothing`, async () => {
      const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
      const session = spawnPty(['video', 'create', 'torch'], env);
      await session.waitFor('180 credits');
      session.write(key);
      expect(await session.exit).toBe(130);
      expect(session.output()).toContain('Nothing was charged.');
      expect(session.output()).not.toContain('bug in assetgen');
      const state = (await (await fetch(`${mock.url}/__mock/state`)).json()) as { ledger: unknown[] };
      expect(state.ledger).toEqual([]);
    });
  }

  it('--no-color reaches the prompt: no colour codes at the 180-credit confirmation', async () => {
    const env: NodeJS.ProcessEnv = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, FORCE_COLOR: '1' };
    delete env.NO_COLOR;
    const coloured = spawnPty(['video', 'create', 'torch'], env);
    await coloured.waitFor('180 credits');
    coloured.write('n\r');
    await coloured.exit;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for colour escapes on purpose
    const colours = /\x1b\[[0-9;]*m/;
    expect(coloured.output()).toMatch(colours);
    const plain = spawnPty(['video', 'create', 'torch', '--no-color'], env);
    await plain.waitFor('180 credits');
    plain.write('n\r');
    expect(await plain.exit).toBe(2);
    expect(plain.output()).not.toMatch(colours);
  });

  it('TERM=dumb: no spinner or cursor movement, plain progress lines', async () => {
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, TERM: 'dumb' };
    const session = spawnPty(['workflows', 'run', 'wf_tileset', '-o', 'tiles/'], env);
    expect(await session.exit).toBe(0);
    const output = session.output();
    expect(output).toContain('node 1/');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: cursor control: erase line, cursor up/hide/show
    expect(output).not.toMatch(/\x1b\[(\d*[ABCDGJK]|\?25[lh])/);
  });

  it('ASSETGEN_NO_INPUT=1 is --no-input: no prompt even on a terminal', async () => {
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, ASSETGEN_NO_INPUT: '1' };
    const session = spawnPty(['video', 'create', 'torch'], env);
    expect(await session.exit).toBe(2);
    expect(session.output()).toContain('pass --yes');
  });

  it('--preview on a real terminal: the saved image after its path; the same command piped writes none', async () => {
    const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey, TERM: 'xterm-kitty' };
    const session = spawnPty(['generate', 'gem', '-a', 'sprite-artist', '-o', 'gem.png', '--preview'], env);
    expect(await session.exit).toBe(0);
    const png = fs.readFileSync(path.join(home.cwd, 'gem.png')).toString('base64');
    expect(session.output()).toContain(`\u001b_Ga=T,f=100,q=2,r=8;${png}\u001b\\`);
    const piped = await runCli(['generate', 'gem', '-a', 'sprite-artist', '-o', 'gem2.png', '--preview'], { env, cwd: home.cwd });
    expect(piped.code).toBe(0);
    expect(piped.stderr + piped.stdout).not.toContain('\u001b');
  });
});
