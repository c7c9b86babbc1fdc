// The package as users get it: `npm pack`, installed into an empty prefix. The SDK entry loads
// none of the CLI's packages, and the installed binary runs.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const recorder = fileURLToPath(new URL('../fixtures/record-imports.cjs', import.meta.url));
let dir: string;
let installed: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assetgen-pack-'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  const prefix = path.join(dir, 'prefix');
  fs.mkdirSync(prefix);
  fs.writeFileSync(path.join(prefix, 'package.json'), '{"name":"consumer","private":true,"type":"module"}');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(dir, tarball)], {
    cwd: prefix,
    stdio: 'ignore',
  });
  installed = prefix;
});
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
