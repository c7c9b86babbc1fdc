// The MCP server keeps every write inside its working directory by the one confinement rule: a
// build tool call does not build a manifest found above it, and an output through a link that
// leads out is refused — before paying (the mock's ledger), nothing written outside.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { tempHome } from '../support/cli.js';
import { startMcp, type McpSession } from '../support/mcp.js';
import { startMock, type MockHandle } from '../support/mock.js';

let mock: MockHandle;
let home: ReturnType<typeof tempHome>;
let mcp: McpSession;
let wd: string;
beforeAll(async () => {
  mock = await startMock({});
  home = tempHome();
  // The project (its manifest) is home/project; the server runs one folder below it.
  fs.writeFileSync(
    path.join(home.cwd, 'assetgen.yaml'),
    'assets:\n  - id: x\n    prompt: a sword\n    agent: sprite-artist\n    out: assets/x.png\n',
  );
  wd = path.join(home.cwd, 'wd');
  fs.mkdirSync(wd);
  fs.symlinkSync('..', path.join(wd, 'up'));
  const env = { ...home.env, ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
  mcp = await startMcp({ env, cwd: wd });
});
afterAll(async () => {
  await mcp?.close();
  await mock.close();
  home.remove();
});
beforeEach(() => mock.reset());

const projectFiles = (): string[] => fs.readdirSync(home.cwd).sort();

it('build does not build a manifest above the working directory', async () => {
  const before = projectFiles();
  for (const args of [{}, { dry_run: true }]) {
    const { result, json } = await mcp.call('build', args);
    expect(result.isError).toBe(true);
    expect(json.error.code).toBe('usage');
    expect(json.error.message).toMatch(/outside the server's working directory/);
  }
  expect((await mock.state()).ledger).toEqual([]);
  expect(projectFiles()).toEqual(before);
  expect(fs.existsSync(path.join(home.cwd, 'assetgen.lock'))).toBe(false);
});

it('generate_image refuses an output through a link that leads out, and a NUL, before paying', async () => {
  for (const output of ['up/x.png', 'up/assets/', 'a\0b.png']) {
    const { result, json } = await mcp.call('generate_image', { prompt: 'a sword', agent: 'sprite-artist', output });
    expect(result.isError, output).toBe(true);
    expect(json.error.code).toBe('usage');
  }
  expect((await mock.state()).ledger).toEqual([]);
  expect(projectFiles()).toEqual(['assetgen.yaml', 'wd']);
});
