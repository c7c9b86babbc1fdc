// Start-up stays cheap: `--version` and a plain `--help` load nothing (help comes from the screens rendered at
// build time), a piped command only what it needs, `assetgen mcp` its bundled SDK but no command before a
// tool is called, and `import('assetgen')` (the SDK) none of the CLI's packages.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, TEST_PATH } from '../support/cli.js';
import { BIN } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';

const recorder = fileURLToPath(new URL('../fixtures/record-imports.cjs', import.meta.url));
const SDK = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const CLI_ONLY = ['ora', '@inquirer', 'msw', 'chalk', 'conf'];
/** Loaded by `assetgen mcp` only. */
const MCP_ONLY = ['@modelcontextprotocol', 'zod', 'ajv'];

/** Every module file a `node <args>` process loads (recorded by a --require hook), run in a temp folder holding `files`. */
async function importsOf(args: string[], env: NodeJS.ProcessEnv = {}, files: Record<string, string> = {}): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-imports-'));
  const file = path.join(dir, 'imports.txt');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  try {
    const child = spawn(process.execPath, ['--require', recorder, ...args], {
      env: { PATH: TEST_PATH, HOME: dir, ASSETGEN_STATE_DIR: dir, RECORD_IMPORTS_TO: file, ...env },
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
  for (const args of [['--help'], ['--version'], ['video', '--help'], ['auth', 'help', 'login'], ['--json', '--help']]) {
    it(`assetgen ${args.join(' ')} loads no heavy dependency`, async () => {
      const imports = await importsOf([BIN, ...args]);
      // --version and a plain help request are answered before the command table is loaded; any
      // other command line needs the table (one file, with commander bundled in: scripts/bundle-entry.mjs).
      expect(imports.some((url) => url.endsWith('/dist/program.cjs'))).toBe(args[0] === '--json');
      expect(imports.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    });
  }

  it('a piped `generate` loads neither colours, spinners, prompts, the config store, the mock nor a second commander', async () => {
    const imports = await importsOf([BIN, 'generate', 'sword', '-a', 'sprite-artist', '-o', 'out/'], {
      ASSETGEN_BASE_URL: mock.url,
      ASSETGEN_API_KEY: mock.apiKey,
    });
    expect(imports.some((url) => url.includes('/dist/commands/generate.js'))).toBe(true);
    // commander is bundled in dist/program.cjs; a command importing src/cli/values.cts (which
    // imports it) would load node_modules' copy as well, seven more files on every run.
    expect(packages(imports, [...CLI_ONLY, ...MCP_ONLY, 'commander', 'string-width'])).toEqual([]);
  });

  it('commands that store no credential load no config store (conf, its JSON-schema validator: ~0.1 s of CPU)', async () => {
    const env = { ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey };
    for (const args of [
      ['auth', 'status'],
      ['install', '--agent', 'cursor', '--scope', 'project', '--dry-run'],
    ]) {
      const imports = await importsOf([BIN, ...args], env);
      expect(imports.some((url) => url.includes(`/dist/commands/${args[0] === 'auth' ? 'auth' : 'skills/install'}.js`))).toBe(true);
      expect(packages(imports, ['conf', 'ajv'])).toEqual([]);
    }
  });

  it('a piped project build (plan, a paid call, lock, gallery code) loads no second commander and no text measure', async () => {
    const manifest = 'defaults:\n  agent: sprite-artist\n  out: assets/\nassets:\n  - id: sword\n    prompt: a sword\n';
    const imports = await importsOf(
      [BIN, 'build', '--yes'],
      { ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey },
      { 'assetgen.yaml': manifest },
    );
    expect(imports.some((url) => url.includes('/dist/commands/project/gallery.js'))).toBe(true);
    // string-width (src/cli/text-width.ts) measures text for a terminal: the live board's lines, a table's columns.
    expect(packages(imports, ['commander', 'string-width'])).toEqual([]);
  });

  it('only `assetgen mcp` loads the MCP SDK: one bundle, and no command before a tool is called', async () => {
    // stdin is /dev/null: the server starts, sees the end of its input and exits 0.
    const imports = await importsOf([BIN, 'mcp'], { ASSETGEN_BASE_URL: mock.url, ASSETGEN_API_KEY: mock.apiKey });
    expect(imports.some((url) => url.includes('/dist/mcp/server.js'))).toBe(true);
    // The SDK and zod come bundled (dist/mcp/sdk.js); ajv and zod-to-json-schema load on first use.
    expect(imports.some((url) => url.includes('/dist/mcp/sdk.js'))).toBe(true);
    expect(packages(imports, ['@modelcontextprotocol', 'zod', 'ajv', 'zod-to-json-schema', 'yaml'])).toEqual([]);
    expect(imports.filter((url) => /\/dist\/commands\/(?!mcp\.js)/.test(url))).toEqual([]);
    expect(packages(imports, ['msw', 'ora', '@inquirer'])).toEqual([]);
  });

  it("import('assetgen') loads none of the CLI's packages", async () => {
    const imports = await importsOf(['-e', `import(${JSON.stringify(SDK)}).then((m) => { if (!m.createClient) process.exit(3); })`]);
    expect(imports.some((url) => url.includes('/dist/client/client.js'))).toBe(true);
    expect(packages(imports, [...CLI_ONLY, ...MCP_ONLY, 'commander'])).toEqual([]);
    expect(imports.filter((url) => /\/dist\/(cli|config|ui|commands|installer|mcp)\//.test(url))).toEqual([]);
  });
});

describe('the bundled MCP SDK (dist/mcp/sdk.js)', () => {
  it("loads zod's locales on first use (left out of the bundle)", async () => {
    const { z } = (await import(
      pathToFileURL(fileURLToPath(new URL('../../dist/mcp/sdk.js', import.meta.url))).href
    )) as typeof import('../../src/mcp/sdk.js');
    try {
      z.config(z.locales.de());
      expect(z.string().safeParse(1).error?.issues[0]?.message).toMatch(/^Ungültige Eingabe/);
    } finally {
      z.config(z.locales.en());
    }
    expect(z.string().safeParse(1).error?.issues[0]?.message).toMatch(/^Invalid input/);
  });
});
