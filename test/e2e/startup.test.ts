// Start-up stays cheap: `--version` loads nothing, `--help` only the bundled command table, a piped command only
// what it needs, and `import('assetgen')` (the SDK) none of the CLI's packages.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../support/cli.js';
import { BIN } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const recorder = fileURLToPath(new URL('../fixtures/record-imports.cjs', import.meta.url));
const SDK = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const CLI_ONLY = ['ora', '@inquirer', 'msw', 'chalk', 'conf'];
/** Loaded by `assetgen mcp` only. */
const MCP_ONLY = ['@modelcontextprotocol', 'zod', 'ajv'];

/** Every module file a `node <args>` process loads (recorded by a --require hook). */
async function importsOf(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-imports-'));
  const file = path.join(dir, 'imports.txt');
  try {
    const child = spawn(process.execPath, ['--require', recorder, ...args], {
      env: { PATH: process.env.PATH, HOME: dir, ASSETGEN_STATE_DIR: dir, RECORD_IMPORTS_TO: file, ...env },
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child, 15_000);
    expect(result.code, result.stderr).toBe(0);
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const packages = (imports: string[], names: string[]) =>
  imports.filter((url) => names.some((name) => url.includes(`/node_modules/${name}/`)));

let mock: MockHandle;
beforeAll(async () => {
  mock = await startMock({});
});
afterAll(async () => {
  await mock.close();
});

describe('start-up', () => {
  for (const args of [['--help'], ['--version'], ['video', '--help']]) {
    it(`assetgen ${args.join(' ')} loads no heavy dependency`, async () => {
      const imports = await importsOf([BIN, ...args]);
      // --version is answered before the command table is loaded; help needs the table only (one
      // file, with commander bundled in: scripts/bundle-entry.mjs), no package from node_modules.
      expect(imports.some((url) => url.endsWith('/dist/program.cjs'))).toBe(args[0] !== '--version');
      expect(imports.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    });
  }

  it('a piped `generate` loads neither colours, spinners, prompts, the config store nor the mock', async () => {
    const imports = await importsOf([BIN, 'generate', 'sword', '-a', 'sprite-artist', '-o', 'out/'], {
      ASSETGEN_BASE_URL: mock.url,
      ASSETGEN_API_KEY: mock.apiKey,
    });
    expect(imports.some((url) => url.includes('/dist/commands/generate.js'))).toBe(true);
    expect(packages(imports, [...CLI_ONLY, ...MCP_ONLY])).toEqual([]);
  });

  it('only `assetgen mcp` loads the MCP SDK', async () => {
    // stdin is /dev/null: the server starts, sees the end of its input and exits 0.
    const imports = await importsOf([BIN, 'mcp'], { ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey });
    expect(packages(imports, ['@modelcontextprotocol'])).not.toEqual([]);
    expect(imports.some((url) => url.includes('/dist/mcp/server.js'))).toBe(true);
    expect(packages(imports, ['msw', 'ora', '@inquirer'])).toEqual([]);
  });

  it("import('assetgen') loads none of the CLI's packages", async () => {
    const imports = await importsOf(['-e', `import(${JSON.stringify(SDK)}).then((m) => { if (!m.createClient) process.exit(3); })`]);
    expect(imports.some((url) => url.includes('/dist/client/client.js'))).toBe(true);
    expect(packages(imports, [...CLI_ONLY, ...MCP_ONLY, 'commander'])).toEqual([]);
    expect(imports.filter((url) => /\/dist\/(cli|config|ui|commands|installer|mcp)\//.test(url))).toEqual([]);
  });
});
