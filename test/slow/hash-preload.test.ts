// Planning a large project hashes the lock's files on another thread while the manifest is read
// (src/pipeline/hash-preload.ts). The thread runs the compiled worker (dist/), so these tests use
// the built modules (`npm run build:js` first), as the CLI does.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as PreloadModule from '../../src/pipeline/hash-preload.js';
import { hashFiles, specHash, specParts } from '../../src/pipeline/hash.js';
import { serializeLock } from '../../src/pipeline/lock.js';
import { recordedFiles } from '../../src/pipeline/plan.js';
import { LOCK_VERSION, type Lock, type ManifestAsset } from '../../src/pipeline/records.js';
import { runInProcess, tempHome } from '../support/cli.js';
import { afterFileSystemTick, tempDir, writeFiles } from '../project/helpers.js';

const { preloadHashes } = (await import(
  pathToFileURL(path.resolve(import.meta.dirname, '../../dist/pipeline/hash-preload.js')).href
)) as typeof PreloadModule;

const COUNT = 1200;
const ids = Array.from({ length: COUNT }, (_, index) => `icon-${index}`);

/** COUNT assets in a folder, each file its own bytes, and a lock recording every one as built (against `service`). */
async function builtProject(root: string, service: string): Promise<Lock> {
  writeFiles(root, Object.fromEntries(ids.map((id) => [`assets/${id}.png`, `bytes of ${id}`])));
  const hashes = await hashFiles(
    root,
    ids.map((id) => `assets/${id}.png`),
  );
  const lock: Lock = { lockfileVersion: LOCK_VERSION, assets: {} };
  for (const id of ids) {
    const asset: ManifestAsset = {
      id,
      kind: 'image',
      agent: 'icon-forge',
      prompt: `icon ${id}`,
      out: { type: 'folder', dir: 'assets' },
      position: { line: 1, col: 1 },
    };
    const file = `assets/${id}.png`;
    lock.assets[id] = {
      kind: 'image',
      agent: 'icon-forge',
      spec: specHash(asset, service),
      specParts: specParts(asset),
      service,
      files: [{ path: file, ...hashes.get(file)! }],
    };
  }
  fs.writeFileSync(path.join(root, 'assetgen.lock'), serializeLock(lock));
  fs.writeFileSync(
    path.join(root, 'assetgen.yaml'),
    ['defaults: { agent: icon-forge, out: assets/ }', 'assets:', ...ids.map((id) => `  - { id: ${id}, prompt: icon ${id} }`), ''].join(
      '\n',
    ),
  );
  return lock;
}

describe('hashes taken on another thread while the manifest is read', () => {
  it('are the hashes the main thread takes: files read, edited, missing and streamed (over 1 MiB)', async () => {
    const root = tempDir();
    const lock = await builtProject(root, 'mock');
    fs.writeFileSync(path.join(root, 'assets/icon-7.png'), 'edited by hand');
    fs.rmSync(path.join(root, 'assets/icon-8.png'));
    fs.writeFileSync(path.join(root, 'assets/icon-9.png'), Buffer.alloc((1 << 20) + 5, 9));
    const preload = preloadHashes(root, recordedFiles(lock));
    expect(preload).toBeDefined();
    const { hashes: taken } = await preload!.hashes();
    // Every file answered by the thread (a thread that failed answers an empty map).
    expect(taken.size).toBe(COUNT);
    expect(taken).toEqual(await hashFiles(root, taken.keys()));
    expect(taken.get('assets/icon-8.png')).toBeNull();
    expect(taken.get('assets/icon-9.png')?.size).toBe((1 << 20) + 5);
  });

  it('a lock of few files is hashed where it is planned: no thread', async () => {
    const root = tempDir();
    const lock = await builtProject(root, 'mock');
    lock.assets = Object.fromEntries(Object.entries(lock.assets).slice(0, 20));
    expect(preloadHashes(root, recordedFiles(lock))).toBeUndefined();
  });

  it('a dry run of 1,200 built assets finds the one edited and the one missing, and the lock broken after the manifest', async () => {
    const home = tempHome();
    try {
      await builtProject(home.cwd, 'mock');
      fs.writeFileSync(path.join(home.cwd, 'assets/icon-100.png'), 'edited by hand');
      fs.rmSync(path.join(home.cwd, 'assets/icon-1000.png'));
      const dryRun = await runInProcess(['build', '--dry-run', '--mock', '--json', '-q'], { env: home.env, cwd: home.cwd });
      expect(dryRun.code).toBe(0);
      const plan = JSON.parse(dryRun.stdout) as {
        counts: Record<string, number>;
        items: { id: string; status: string; reasons: string[] }[];
      };
      expect(plan.counts).toEqual({ 'up-to-date': COUNT - 2, edited: 1, missing: 1 });
      expect(plan.items.find((item) => item.id === 'icon-100')?.reasons[0]).toBe('assets/icon-100.png edited since assetgen wrote it');
      expect(plan.items.find((item) => item.id === 'icon-1000')?.status).toBe('missing');

      // The lock is read first now, but a broken manifest is still the error reported when both are.
      fs.writeFileSync(path.join(home.cwd, 'assetgen.lock'), '{ not json');
      fs.appendFileSync(path.join(home.cwd, 'assetgen.yaml'), '  - { id: icon-0, prompt: twice }\n');
      const both = await runInProcess(['build', '--dry-run', '--mock'], { env: home.env, cwd: home.cwd });
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('icon-0');
      expect(both.stderr).not.toContain('not valid JSON');
    } finally {
      home.remove();
    }
  });

  it("with a warm plan cache, the files are stat'ed on a thread: the same plan as without it, an edit in place with its mtime restored found", async () => {
    const home = tempHome();
    try {
      await builtProject(home.cwd, 'mock');
      const run = async (): Promise<string> => {
        const result = await runInProcess(['build', '--dry-run', '--mock', '--json', '-q'], { env: home.env, cwd: home.cwd });
        expect(result.code, result.stderr).toBe(0);
        return result.stdout;
      };
      const edited = path.join(home.cwd, 'assets/icon-100.png');
      const second = Math.floor(Date.now() / 1000) - 100;
      fs.utimesSync(edited, second, second);
      // So that the first plan records every file (bounded).
      await afterFileSystemTick([edited]);
      const cold = await run();
      expect(fs.existsSync(path.join(home.cwd, '.assetgen/cache/files.bin'))).toBe(true);
      expect(await run()).toBe(cold);
      // The same size and mtime, other bytes: only its ctime moved.
      fs.writeFileSync(edited, 'bytes of icon-1x0');
      fs.utimesSync(edited, second, second);
      fs.rmSync(path.join(home.cwd, 'assets/icon-1000.png'));
      const plan = JSON.parse(await run()) as { counts: Record<string, number> };
      expect(plan.counts).toEqual({ 'up-to-date': COUNT - 2, edited: 1, missing: 1 });
      const warm = JSON.stringify(plan);
      fs.rmSync(path.join(home.cwd, '.assetgen/cache'), { recursive: true });
      expect(JSON.stringify(JSON.parse(await run()))).toBe(warm);
    } finally {
      home.remove();
    }
  });
});
