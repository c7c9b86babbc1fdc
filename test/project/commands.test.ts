// `assetgen init` and `assetgen lock merge` in-process through the real command table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serializeLock } from '../../src/pipeline/lock.js';
import type { Lock, LockEntry } from '../../src/pipeline/records.js';
import { jsonError, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { STARTER, writeFiles } from './helpers.js';

let home: ReturnType<typeof tempHome>;
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.remove());

const run = (args: string[], cwd = home.cwd) => runInProcess(args, { env: home.env, cwd });
const entry = (spec: string): LockEntry => ({
  kind: 'image',
  agent: 'x',
  spec,
  files: [{ path: `${spec}.png`, sha256: 'a'.repeat(64), size: 1 }],
});
const lock = (assets: Record<string, LockEntry>): string => serializeLock({ lockfileVersion: 1, assets });

describe('assetgen init', () => {
  it('writes the commented starter and prints its path', async () => {
    const result = await run(['init']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('assetgen.yaml\n.gitignore\n');
    expect(fs.readFileSync(path.join(home.cwd, 'assetgen.yaml'), 'utf8')).toBe(STARTER);
    expect(result.stderr).toContain('assetgen build --dry-run');
  });

  it('never writes over an existing manifest: exit 2, file untouched', async () => {
    writeFiles(home.cwd, { 'assetgen.yaml': 'mine\n' });
    const result = await run(['init']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('assetgen.yaml already exists');
    expect(fs.readFileSync(path.join(home.cwd, 'assetgen.yaml'), 'utf8')).toBe('mine\n');
    const json = await run(['init', '--json']);
    expect(jsonError(json)).toMatchObject({ code: 'usage', exitCode: 2 });
  });

  it('-f writes elsewhere, and notes a manifest further up', async () => {
    writeFiles(home.cwd, { 'assetgen.yaml': STARTER });
    const result = await run(['init', '-f', 'game/assetgen.yaml', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result)).toMatchObject({
      manifest: path.join(home.cwd, 'game', 'assetgen.yaml'),
      created: true,
      changed: true,
      files: [
        { path: 'assetgen.yaml', action: 'create' },
        { path: '.gitignore', action: 'create' },
      ],
    });
    expect(fs.existsSync(path.join(home.cwd, 'game', '.gitignore'))).toBe(true);
    expect(fs.existsSync(path.join(home.cwd, 'game', 'assetgen.yaml'))).toBe(true);
    expect((await run(['init', '-f', 'sub/assetgen.yaml'])).stderr).toContain('assetgen.yaml is further up');
  });
});

describe('assetgen lock merge', () => {
  beforeEach(() => {
    writeFiles(home.cwd, {
      'assetgen.yaml': STARTER,
      'assetgen.lock': lock({ sword: entry('s1'), hero: entry('h1') }),
      'ci/1/assetgen.lock': lock({ sword: entry('s2'), hero: entry('h1') }),
      'ci/2/assetgen.lock': lock({ sword: entry('s1'), hero: entry('h2'), coin: entry('c1') }),
    });
  });
  const merged = (): Lock => JSON.parse(fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8')) as Lock;

  it('joins shard locks into assetgen.lock next to the manifest, the same whatever the order', async () => {
    const result = await run(['lock', 'merge', 'ci/1/assetgen.lock', 'ci/2/assetgen.lock']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('assetgen.lock\n');
    expect(merged().assets).toEqual({ coin: entry('c1'), hero: entry('h2'), sword: entry('s2') });
    expect(fs.existsSync(path.join(home.cwd, '.assetgen.lock.writer'))).toBe(false);
    const bytes = fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8');
    writeFiles(home.cwd, { 'assetgen.lock': lock({ sword: entry('s1'), hero: entry('h1') }) });
    const json = parseJson(await run(['lock', 'merge', 'ci/2/assetgen.lock', 'ci/1/assetgen.lock', '--json']));
    expect(json).toMatchObject({ assets: 3, changed: true });
    expect(fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8')).toBe(bytes);
  });

  it('works from a subdirectory and with -f, and says when nothing changed', async () => {
    writeFiles(home.cwd, { 'src/.keep': '' });
    expect((await run(['lock', 'merge', '../ci/1/assetgen.lock'], path.join(home.cwd, 'src'))).code).toBe(0);
    expect(merged().assets.sword).toEqual(entry('s2'));
    const again = await run(['lock', 'merge', '-f', 'assetgen.yaml', 'ci/1/assetgen.lock', '--json']);
    expect(parseJson(again)).toMatchObject({ changed: false });
  });

  it('a conflict is exit 2 naming the asset, and assetgen.lock is left as it was', async () => {
    writeFiles(home.cwd, { 'ci/3/assetgen.lock': lock({ sword: entry('s3') }) });
    const before = fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8');
    const result = await run(['lock', 'merge', 'ci/1/assetgen.lock', 'ci/3/assetgen.lock', '--json']);
    expect(result.code).toBe(2);
    expect(jsonError(result).message).toContain('Conflict on asset "sword"');
    expect(fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8')).toBe(before);
  });

  it('waits for no one: a lock being written by a build is exit 2, and left alone', async () => {
    writeFiles(home.cwd, { '.assetgen.lock.writer': JSON.stringify({ pid: process.pid, host: os.hostname(), since: 'now' }) });
    const before = fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8');
    const result = await run(['lock', 'merge', 'ci/1/assetgen.lock']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is being written by another assetgen');
    expect(fs.readFileSync(path.join(home.cwd, 'assetgen.lock'), 'utf8')).toBe(before);
    expect(fs.existsSync(path.join(home.cwd, '.assetgen.lock.writer'))).toBe(true);
  });

  it('refuses a missing or broken lock, and works only where there is a manifest', async () => {
    expect((await run(['lock', 'merge', 'nope.lock'])).stderr).toContain('Cannot read nope.lock: no such file');
    writeFiles(home.cwd, {
      'bad.lock': '{"lockfileVersion": 1, "assets": {"a": {"kind": "image", "files": [{"path": "../../x", "sha256": "a", "size": 1}]}}}',
    });
    const bad = await run(['lock', 'merge', 'bad.lock']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a path inside the project');
    const elsewhere = await run(['lock', 'merge', path.join(home.cwd, 'ci/1/assetgen.lock')], home.home);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('assetgen init');
  });
});
