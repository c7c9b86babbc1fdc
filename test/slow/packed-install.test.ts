// The package as users get it: `npm pack`, installed into an empty prefix. A lean install (issue 29:
// at most 45 MB and 90 packages, no install script, no msw and no MCP SDK), the SDK entry loads none
// of the CLI's packages, the mock's entry works without msw, and the installed binary runs every
// front end: --version, demo, generate --mock, mcp --mock (with an elicitation, which needs ajv),
// mock, a build with post steps. The figures are printed for docs/benchmarks.md.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp } from '../support/mcp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const recorder = fileURLToPath(new URL('../fixtures/record-imports.cjs', import.meta.url));
let dir: string;
let installed: string;
/** What npm printed while installing the tarball (its warnings go to stderr). */
let npmOutput: string;
/** A clean environment for the installed binary: its own HOME, config and state, no colour. */
let env: NodeJS.ProcessEnv;
const bin = () => path.join(installed, 'node_modules', '.bin', 'assetgen');
const script = () => path.join(installed, 'node_modules', 'assetgen', 'bin', 'assetgen.js');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-pack-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  const prefix = path.join(dir, 'prefix');
  fs.mkdirSync(prefix);
  fs.writeFileSync(path.join(prefix, 'package.json'), '{"name":"consumer","private":true,"type":"module"}');
  // From npm's cache where it can (--prefer-offline); bounded, so a stuck registry fails the suite.
  const install = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel', 'warn', path.join(dir, tarball)],
    {
      cwd: prefix,
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  npmOutput = `${install.stdout}${install.stderr}`;
  if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${npmOutput}`);
  installed = prefix;
  env = {
    PATH: process.env.PATH,
    HOME: prefix,
    ASSETGEN_CONFIG_DIR: path.join(prefix, '.config', 'assetgen'),
    ASSETGEN_STATE_DIR: path.join(prefix, '.state', 'assetgen'),
    NO_COLOR: '1',
  };
}, 360_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a packed install', () => {
  it('carries the type declarations the package names (built by the prepack script)', () => {
    const root = path.join(installed, 'node_modules', 'assetgen');
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: { '.': { types: string } } };
    const types = fs.readFileSync(path.join(root, manifest.exports['.'].types), 'utf8');
    expect(types).toContain('createClient');
    expect(fs.existsSync(path.join(root, 'dist', 'client', 'types.d.ts'))).toBe(true);
  });

  it("import('assetgen') loads no file of conf, msw, ora, chalk or inquirer", () => {
    const record = path.join(dir, 'imports.txt');
    const result = spawnSync(
      process.execPath,
      [
        '--require',
        recorder,
        '--input-type=module',
        '-e',
        "const m = await import('assetgen'); if (typeof m.createClient !== 'function') process.exit(3);",
      ],
      { cwd: installed, env: { PATH: process.env.PATH, RECORD_IMPORTS_TO: record }, encoding: 'utf8' },
    );
    expect(result.status, result.stderr).toBe(0);
    const imports = fs.readFileSync(record, 'utf8').split('\n').filter(Boolean);
    expect(imports.some((file) => file.includes('/node_modules/assetgen/dist/client/'))).toBe(true);
    for (const name of ['conf', 'msw', 'ora', 'chalk', '@inquirer']) {
      expect(imports.filter((file) => file.includes(`/node_modules/${name}/`))).toEqual([]);
    }
  });

  it('runs the installed binary', () => {
    const bin = path.join(installed, 'node_modules', '.bin', 'assetgen');
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('generate');
    expect(fs.existsSync(path.join(installed, 'node_modules', 'assetgen', 'LICENSE'))).toBe(true);
  });

  it('prints a bash completion that a real bash accepts', () => {
    const bin = path.join(installed, 'node_modules', '.bin', 'assetgen');
    const completion = spawnSync(bin, ['completion', 'bash'], { encoding: 'utf8' });
    expect(completion.status).toBe(0);
    const script = path.join(installed, 'assetgen.bash');
    fs.writeFileSync(script, completion.stdout);
    const words = spawnSync(
      'bash',
      ['-c', `source ${script} && COMP_WORDS=(assetgen gen) COMP_CWORD=1 && _assetgen && echo "\${COMPREPLY[@]}"`],
      {
        encoding: 'utf8',
      },
    );
    expect(words.status, words.stderr).toBe(0);
    expect(words.stdout.trim().split(/\s+/)).toContain('generate');
  });

  it('runs the demo offline, from the installed package alone', () => {
    const bin = path.join(installed, 'node_modules', '.bin', 'assetgen');
    const dir = path.join(installed, 'demo-out');
    const demo = spawnSync(bin, ['demo', '-d', dir], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH, HOME: installed },
    });
    expect(demo.status, demo.stderr).toBe(0);
    const saved = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
    expect(saved.some((file) => file.endsWith('.png'))).toBe(true);
    expect(saved.some((file) => file.endsWith('.gif'))).toBe(true);
  });
});

describe('a lean install (issue 29)', () => {
  it('is at most 45 MB and 90 packages, runs no install script, and holds no msw and no MCP SDK', () => {
    const modules = path.join(installed, 'node_modules');
    const packages = spawnSync('npm', ['ls', '--all', '--parseable'], { cwd: installed, encoding: 'utf8' })
      .stdout.split('\n')
      .filter((line) => line.includes(`${path.sep}node_modules${path.sep}`));
    const megabytes = Number(execFileSync('du', ['-sk', modules], { encoding: 'utf8' }).split(/\s/)[0]) / 1024;
    console.log(`packed install: ${packages.length} packages, ${megabytes.toFixed(1)} MB (du -sk node_modules)`);
    expect(packages.length).toBeLessThanOrEqual(90);
    expect(megabytes).toBeLessThanOrEqual(45);
    expect(npmOutput).not.toMatch(/install-scripts|allowScripts|postinstall|prepare/i);
    const names = packages.map((line) => line.slice(line.lastIndexOf(`node_modules${path.sep}`) + 'node_modules/'.length));
    expect(names.filter((name) => name === 'msw' || name.startsWith('@modelcontextprotocol'))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(modules, 'assetgen', 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[hook], hook).toBeUndefined();
  });

  it("import('assetgen/mock') works without msw; its handlers name `npm i -D msw`", () => {
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const mock = await import('assetgen/mock');
         const server = await mock.startMockServer({ port: 0 });
         const status = (await fetch(server.url + '/api/v1/workflows', { headers: { authorization: 'Bearer ' + server.apiKey } })).status;
         await server.close();
         let message = '';
         try { mock.createMockService().handlers; } catch (error) { message = error.message; }
         console.log(JSON.stringify({ status, message }));`,
      ],
      { cwd: installed, env, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout) as { status: number; message: string };
    expect(outcome.status).toBe(200);
    expect(outcome.message).toContain('npm i -D msw');
  });

  it('generate --mock saves a PNG', () => {
    const out = path.join(installed, 'generated');
    const result = spawnSync(bin(), ['generate', 'a gold coin', '--agent', 'icon-forge', '--mock', '-o', `${out}/`, '--json'], {
      cwd: installed,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(fs.readdirSync(out).some((file) => file.endsWith('.png'))).toBe(true);
  });

  it('builds a manifest with post steps (sharp) against the bundled mock', () => {
    const project = path.join(installed, 'game');
    fs.mkdirSync(project);
    fs.copyFileSync(fileURLToPath(new URL('../fixtures/ci-smoke/assetgen.yaml', import.meta.url)), path.join(project, 'assetgen.yaml'));
    const result = spawnSync(bin(), ['build', '--mock', '--yes', '--json'], { cwd: project, env, encoding: 'utf8', timeout: 120_000 });
    expect(result.status, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout) as { items: { outcome: string; media: { width: number }[] }[] };
    expect(document.items.map((item) => item.outcome)).toEqual(['built', 'built']);
    expect(document.items[0]!.media[0]!.width).toBe(32);
    expect(fs.existsSync(path.join(project, 'assets', 'icons', 'gem.webp'))).toBe(true);
  });

  it('mock serves until SIGTERM', async () => {
    const child = spawn(bin(), ['mock', '--json'], { cwd: installed, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error('no line from assetgen mock in 30 s')), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('\n')) {
            clearTimeout(timer);
            resolve(text.split('\n')[0]!);
          }
        });
      });
      const info = JSON.parse(line) as { url: string; apiKey: string };
      const workflows = await fetch(`${info.url}/api/v1/workflows`, { headers: { authorization: `Bearer ${info.apiKey}` } });
      expect(workflows.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('mcp --mock answers tools, and an elicited yes is validated (ajv, without the SDK installed)', async () => {
    const project = path.join(installed, 'mcp-project');
    fs.mkdirSync(project);
    const session = await startMcp({
      process: script(),
      env: env,
      cwd: project,
      args: ['--mock'],
      capabilities: { elicitation: { form: {} } },
      setup: (client) => client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } })),
    });
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('generate_image');
      const video = await session.call('create_video', { prompt: 'torch' }, { timeoutMs: 60_000 });
      expect(video.result.isError, JSON.stringify(video.json)).toBeFalsy();
    } finally {
      await session.close();
    }
  });
});
