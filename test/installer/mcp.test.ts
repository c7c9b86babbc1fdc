// `assetgen install --mcp`: per agent and scope, the assetgen server entry in the agent's own MCP
// file — fresh files, files with other servers and comments (kept byte for byte outside our one
// inserted chunk), reinstall is a no-op, uninstall gives the file back exactly, and no key anywhere.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CODING_AGENTS, findAgent, type McpFormat, type Scope } from '../../src/installer/agents.js';
import { addServer } from '../../src/installer/mcp-config.js';
import { planMcp } from '../../src/installer/mcp-register.js';
import { OWN_SCRIPT } from '../../src/installer/render.js';
import { setPlatformForTesting } from '../../src/platform.js';
import { parseJson, runInProcess, tempHome } from '../support/cli.js';

const SECRET = 'agk_live_SECRET_0123456789abcdef0123456789';

// Where each agent reads MCP servers (docs/mcp.md), stated independently of src/installer.
const EXPECTED: Record<string, { project?: string; user?: string; format: McpFormat }> = {
  'claude-code': { project: '.mcp.json', user: '.claude.json', format: 'mcpServersStdio' },
  cursor: { project: '.cursor/mcp.json', user: '.cursor/mcp.json', format: 'mcpServers' },
  'github-copilot': { project: '.vscode/mcp.json', format: 'vscodeServers' },
  'gemini-cli': { project: '.gemini/settings.json', user: '.gemini/settings.json', format: 'mcpServers' },
  codex: { project: '.codex/config.toml', user: '.codex/config.toml', format: 'codexToml' },
  opencode: { project: 'opencode.json', user: '.config/opencode/opencode.json', format: 'opencode' },
  windsurf: { user: '.codeium/windsurf/mcp_config.json', format: 'mcpServers' },
  kiro: { project: '.kiro/settings/mcp.json', user: '.kiro/settings/mcp.json', format: 'mcpServers' },
  roo: { project: '.roo/mcp.json', format: 'mcpServers' },
};

const PARENT: Record<McpFormat, string> = {
  mcpServers: 'mcpServers',
  mcpServersStdio: 'mcpServers',
  vscodeServers: 'servers',
  opencode: 'mcp',
  codexToml: 'mcp_servers',
};

/** A file someone else wrote: other servers, comments (where the format has them), other settings. */
function fixture(format: McpFormat): string {
  if (format === 'codexToml')
    return '# my codex config\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\nargs = ["--x"]  # keep\n';
  const parent = PARENT[format];
  const other =
    format === 'opencode' ? '{ "type": "local", "command": ["other-server"] }' : '{ "command": "other-server", "args": ["--x"] }';
  return `{\n  // servers the team uses\n  "theme": "dark",\n  "${parent}": {\n    "other": ${other} // keep me\n  },\n}\n`;
}

function entryOf(text: string, format: McpFormat): unknown {
  const root = (format === 'codexToml' ? parseToml(text) : parseJsonc(text)) as Record<string, Record<string, unknown>>;
  return root[PARENT[format]]?.assetgen;
}

const EXPECTED_ENTRY: Record<McpFormat, unknown> = {
  mcpServers: { command: 'assetgen', args: ['mcp'] },
  mcpServersStdio: { type: 'stdio', command: 'assetgen', args: ['mcp'] },
  vscodeServers: { type: 'stdio', command: 'assetgen', args: ['mcp'] },
  opencode: { type: 'local', command: ['assetgen', 'mcp'], enabled: true },
  codexToml: { command: 'assetgen', args: ['mcp'] },
};

/** True when `after` is `before` with one contiguous chunk inserted. */
function oneChunkInserted(before: string, after: string): boolean {
  let prefix = 0;
  while (prefix < before.length && before[prefix] === after[prefix]) prefix++;
  return after.endsWith(before.slice(prefix)) && after.length > before.length;
}

let home: ReturnType<typeof tempHome>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = tempHome();
  // A global install on PATH (the entry names `assetgen`); tests without one set their own PATH.
  const globalBin = path.join(home.home, 'global-bin');
  fs.mkdirSync(globalBin);
  fs.writeFileSync(path.join(globalBin, 'assetgen'), '', { mode: 0o755 });
  env = {
    ...home.env,
    PATH: [globalBin, home.env.PATH].join(path.delimiter),
    ASSETGEN_API_KEY: SECRET,
    ASSETGEN_BASE_URL: 'https://assets.example.com',
  };
});
afterEach(() => home.remove());

const run = (args: string[]) => runInProcess([...args, '--json'], { env, cwd: home.cwd });

describe('install --mcp', () => {
  it('the agent table matches the documented MCP files', () => {
    for (const agent of CODING_AGENTS) {
      const expected = EXPECTED[agent.id];
      if (!expected) {
        expect(agent.mcp, agent.id).toBeNull();
        continue;
      }
      expect(agent.mcp?.format, agent.id).toBe(expected.format);
      expect(agent.mcp?.project, agent.id).toBe(expected.project);
      expect(agent.mcp?.source, agent.id).toMatch(/^https:\/\//);
    }
  });

  for (const [id, expected] of Object.entries(EXPECTED)) {
    for (const scope of ['project', 'user'] as Scope[]) {
      const relative = expected[scope];
      if (!relative) continue;
      it(`${id} (${scope}): fresh file, existing file kept byte for byte, idempotent, uninstall removes only ours`, async () => {
        const file = path.join(scope === 'project' ? home.cwd : home.home, relative);
        const install = ['install', '--mcp', '--agent', id, '--scope', scope, '--yes'];
        const uninstall = ['skills', 'uninstall', '--agent', id, '--scope', scope, '--yes'];

        // Fresh: the file is created with our entry only, and goes again on uninstall.
        const first = await run(install);
        expect(first.code, first.stderr).toBe(0);
        expect(entryOf(fs.readFileSync(file, 'utf8'), expected.format)).toEqual(EXPECTED_ENTRY[expected.format]);
        expect(parseJson(first).mcp).toEqual([expect.objectContaining({ agents: [id], path: file, action: 'add' })]);
        const again = await run(install);
        expect(parseJson(again).changed).toBe(false);
        expect(parseJson(await run(['skills', 'list'])).mcp).toEqual([{ path: file, format: expected.format, agents: [id], scope }]);
        expect((await run(uninstall)).code).toBe(0);
        expect(fs.existsSync(file)).toBe(false);

        // Existing: other servers and comments stay; our entry is one inserted chunk; uninstall restores the bytes.
        const original = fixture(expected.format);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, original, { mode: 0o600 });
        expect((await run(install)).code).toBe(0);
        const installed = fs.readFileSync(file, 'utf8');
        expect(oneChunkInserted(original, installed), installed).toBe(true);
        expect(entryOf(installed, expected.format)).toEqual(EXPECTED_ENTRY[expected.format]);
        expect(installed).not.toContain(SECRET);
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        await run(install);
        expect(fs.readFileSync(file, 'utf8')).toBe(installed);
        const removed = await run(uninstall);
        expect(removed.code, removed.stderr).toBe(0);
        expect(fs.readFileSync(file, 'utf8')).toBe(original);
      });
    }
  }

  it('an entry someone else wrote is left alone; an edited entry of ours survives uninstall', async () => {
    const file = path.join(home.cwd, '.cursor/mcp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const theirs = '{ "mcpServers": { "assetgen": { "command": "npx", "args": ["-y", "assetgen", "mcp"] } } }\n';
    fs.writeFileSync(file, theirs);
    const result = await run(['install', '--mcp', '--agent', 'cursor', '--yes']);
    expect(parseJson(result).mcp[0]).toMatchObject({ action: 'conflict' });
    expect(fs.readFileSync(file, 'utf8')).toBe(theirs);
    fs.rmSync(file);
    await run(['install', '--mcp', '--agent', 'cursor', '--yes']);
    const edited = fs.readFileSync(file, 'utf8').replace('"mcp"', '"mcp", "--allow-outside"');
    fs.writeFileSync(file, edited);
    const removal = parseJson(await run(['skills', 'uninstall', '--yes']));
    expect(removal.mcp).toEqual([expect.objectContaining({ action: 'edited' })]);
    expect(fs.readFileSync(file, 'utf8')).toBe(edited);
  });

  it('agents without an MCP file for the scope are skipped with a reason; no key is written anywhere', async () => {
    const result = await run(['install', '--mcp', '--agent', 'goose', '--agent', 'windsurf', '--agent', 'claude-code', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    const mcp = parseJson(result).mcp as { agents: string[]; action: string; reason?: string }[];
    expect(mcp.find((item) => item.agents[0] === 'goose')).toMatchObject({
      action: 'unsupported',
      reason: expect.stringContaining('by hand'),
    });
    expect(mcp.find((item) => item.agents[0] === 'windsurf')).toMatchObject({ action: 'unsupported' });
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else files.push(full);
      }
    };
    walk(home.home);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toContain(SECRET);
  });

  it('--dry-run writes nothing', async () => {
    const result = await run(['install', '--mcp', '--agent', 'claude-code', '--dry-run']);
    expect(parseJson(result).mcp[0]).toMatchObject({ action: 'add' });
    expect(fs.existsSync(path.join(home.cwd, '.mcp.json'))).toBe(false);
  });
});

describe('the MCP entry starts assetgen where it runs', () => {
  afterEach(() => setPlatformForTesting(undefined));
  const entries = (scope: Scope = 'project') =>
    planMcp(
      ['cursor', 'codex', 'opencode'].map((id) => findAgent(id)!),
      scope,
      home.cwd,
      env,
      false,
    ).map((item) => entryOf(item.text!, item.format!));

  it("on Windows: `cmd /c assetgen mcp` (npm's global assetgen is a batch file, and clients spawn without a shell)", () => {
    setPlatformForTesting('win32');
    expect(entries()).toEqual([
      { command: 'cmd', args: ['/c', 'assetgen', 'mcp'] },
      { command: 'cmd', args: ['/c', 'assetgen', 'mcp'] },
      { type: 'local', command: ['cmd', '/c', 'assetgen', 'mcp'], enabled: true },
    ]);
    setPlatformForTesting('linux');
    expect(entries()[0]).toEqual({ command: 'assetgen', args: ['mcp'] });
  });

  it("a Windows path survives Codex's TOML (backslashes escaped, read back equal)", () => {
    const launch = { command: 'C:\\Program Files\\nodejs\\node.exe', args: ['C:\\Users\\me\\assetgen\\bin\\assetgen.js', 'mcp'] };
    const added = addServer('model = "o3"\n', 'codexToml', launch);
    expect(added.status).toBe('add');
    expect(entryOf((added as { text: string }).text, 'codexToml')).toEqual(launch);
  });

  it('without assetgen on PATH: this copy by absolute paths, which a client spawning it without a shell can start (spawned)', async () => {
    env = { ...env, PATH: home.env.PATH };
    for (const platform of ['win32', 'linux'] as const) {
      setPlatformForTesting(platform);
      expect(entries()[0]).toEqual({ command: process.execPath, args: [OWN_SCRIPT, 'mcp'] });
    }
    setPlatformForTesting(undefined);
    expect((await run(['install', '--mcp', '--agent', 'cursor', '--yes'])).code).toBe(0);
    const entry = entryOf(fs.readFileSync(path.join(home.cwd, '.cursor/mcp.json'), 'utf8'), 'mcpServers') as {
      command: string;
      args: string[];
    };
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: env as Record<string, string>,
      cwd: home.cwd,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'assetgen-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('generate_image');
    } finally {
      await client.close();
    }
  });
});

describe('uninstall takes our entry and nothing else', () => {
  const codexFile = () => path.join(home.cwd, '.codex/config.toml');
  const OTHER = '[mcp_servers.other]\ncommand = "other-server"\n';

  it("codex: a key the user added under the assetgen table keeps the entry (edited, kept), never handing it to another server's table", async () => {
    // The reviewer's reproduction, as typed: no assetgen on PATH, no key, human output.
    const plain = { env: { ...home.env }, cwd: home.cwd };
    fs.mkdirSync(path.dirname(codexFile()));
    fs.writeFileSync(codexFile(), OTHER);
    expect((await runInProcess(['install', '--agent', 'codex', '--mcp', '--yes', '-q'], plain)).code).toBe(0);
    const installed = fs.readFileSync(codexFile(), 'utf8');
    fs.appendFileSync(codexFile(), 'startup_timeout_sec = 30\n'); // the user tunes the assetgen entry
    const tuned = fs.readFileSync(codexFile(), 'utf8');
    const removal = await runInProcess(['skills', 'uninstall', '--project-dir', '.', '--yes'], plain);
    expect(removal.code, removal.stderr).toBe(0);
    expect(fs.readFileSync(codexFile(), 'utf8')).toBe(tuned);
    expect((parseToml(tuned) as { mcp_servers: Record<string, unknown> }).mcp_servers.other).toEqual({ command: 'other-server' });
    expect(removal.stdout + removal.stderr).toContain(`edited    ${codexFile()} (changed since: kept)`);
    expect(removal.stdout + removal.stderr).not.toContain('Removed the assetgen MCP server');

    // Still recorded: reported as edited again, and removed once the user's key is gone.
    expect(parseJson(await runInProcess(['skills', 'uninstall', '--yes', '--force', '--json'], plain)).mcp).toEqual([
      expect.objectContaining({ path: codexFile(), action: 'edited' }),
    ]);
    expect(fs.readFileSync(codexFile(), 'utf8')).toBe(tuned);
    fs.writeFileSync(codexFile(), installed);
    expect(parseJson(await runInProcess(['skills', 'uninstall', '--yes', '--json'], plain)).mcp).toEqual([
      expect.objectContaining({ path: codexFile(), action: 'remove' }),
    ]);
    expect(fs.readFileSync(codexFile(), 'utf8')).toBe(OTHER);
  });

  // Whatever TOML counts as part of [mcp_servers.assetgen]: keys up to the next header, dotted keys,
  // and its sub-tables wherever they stand.
  const grown: Record<string, (installed: string) => string> = {
    'a key after it, then another table': (installed) => `${installed}enabled = false\n\n[profiles.fast]\nmodel = "o4-mini"\n`,
    'a key after blank lines and a comment': (installed) => `${installed}\n# tuned by me\n\nstartup_timeout_sec = 30\n`,
    'a dotted key': (installed) => `${installed}env.ASSETGEN_BASE_URL = "https://assets.example.com"\n`,
    '[mcp_servers.assetgen.env] after it': (installed) =>
      `${installed}[mcp_servers.assetgen.env]\nASSETGEN_BASE_URL = "https://assets.example.com"\n`,
    '[mcp_servers.assetgen.env] before it': (installed) => `[mcp_servers.assetgen.env]\nASSETGEN_BASE_URL = "https://x"\n\n${installed}`,
    'an array of tables under it': (installed) => `${installed}[[mcp_servers.assetgen.tools]]\nname = "generate_image"\n`,
  };
  for (const [what, grow] of Object.entries(grown)) {
    it(`codex: ${what} makes the entry the user's: kept, every byte, until it holds only ours again`, async () => {
      fs.mkdirSync(path.dirname(codexFile()));
      fs.writeFileSync(codexFile(), OTHER);
      expect((await run(['install', '--mcp', '--agent', 'codex', '--yes'])).code).toBe(0);
      const installed = fs.readFileSync(codexFile(), 'utf8');
      const edited = grow(installed);
      fs.writeFileSync(codexFile(), edited);
      for (const force of [[], ['--force']]) {
        const removal = await run(['skills', 'uninstall', '--agent', 'codex', '--yes', ...force]);
        expect(removal.code, removal.stderr).toBe(0);
        expect(parseJson(removal).mcp).toEqual([expect.objectContaining({ action: 'edited' })]);
        expect(fs.readFileSync(codexFile(), 'utf8')).toBe(edited);
      }
      fs.writeFileSync(codexFile(), installed);
      expect(parseJson(await run(['skills', 'uninstall', '--agent', 'codex', '--yes'])).mcp).toEqual([
        expect.objectContaining({ action: 'remove' }),
      ]);
      expect(fs.readFileSync(codexFile(), 'utf8')).toBe(OTHER);
    });
  }

  it('codex: comments, blank lines or another table after ours are not part of it: the chunk is still cut, the rest kept', async () => {
    for (const tail of ['\n# a note\n\n', '[mcp_servers.third]\ncommand = "third-server"\n', '[mcp_servers]\n']) {
      fs.mkdirSync(path.dirname(codexFile()), { recursive: true });
      fs.writeFileSync(codexFile(), OTHER);
      expect((await run(['install', '--mcp', '--agent', 'codex', '--yes'])).code).toBe(0);
      fs.appendFileSync(codexFile(), tail);
      const removal = await run(['skills', 'uninstall', '--agent', 'codex', '--yes']);
      expect(parseJson(removal).mcp, tail).toEqual([expect.objectContaining({ action: 'remove' })]);
      expect(fs.readFileSync(codexFile(), 'utf8'), tail).toBe(OTHER + tail);
    }
  });

  it('JSON: a server added beside ours in a servers object that was empty: uninstall leaves strict JSON with their server', async () => {
    const file = path.join(home.cwd, '.cursor/mcp.json');
    const mine = '"mine": { "command": "my-server" }';
    const joined: Record<string, (installed: string) => string> = {
      before: (installed) => installed.replace('"assetgen"', `${mine},\n    "assetgen"`),
      after: (installed) => installed.replace(/("assetgen": \{[^}]*\})/, `$1,\n    ${mine}`),
    };
    for (const [where, join] of Object.entries(joined)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, '{\n  "theme": "dark",\n  "mcpServers": {}\n}\n');
      expect((await run(['install', '--mcp', '--agent', 'cursor', '--yes'])).code).toBe(0);
      fs.writeFileSync(file, join(fs.readFileSync(file, 'utf8')));
      const removal = await run(['skills', 'uninstall', '--agent', 'cursor', '--yes']);
      expect(parseJson(removal).mcp, where).toEqual([expect.objectContaining({ action: 'remove' })]);
      const text = fs.readFileSync(file, 'utf8');
      expect(() => JSON.parse(text) as unknown, `${where}: ${text}`).not.toThrow();
      expect(JSON.parse(text), where).toEqual({ theme: 'dark', mcpServers: { mine: { command: 'my-server' } } });
    }
  });
});
