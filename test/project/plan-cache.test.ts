// The plan cache (.assetgen/cache/, src/pipeline/plan-cache.ts) never changes a plan's outcome: the
// built CLI's `build --dry-run --json` (its command table in process: the same compiled modules the
// binary runs, so the cache names the same program) with a warm cache is the document it gives without one, on a
// project with every state; an edit that keeps a file's size and mtime, a manifest, template or lock
// edit is seen; a corrupt, truncated, foreign or forged cache, or one that is a link out of the
// project, gives the plan without a cache and nothing is written outside. The last tests hold the
// cache itself to what it must skip (its stats), and to the racy rule.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { useMockProject } from '../support/project.js';
import { hashFiles, fileStamp, specHash, specParts } from '../../src/pipeline/hash.js';
import { serializeLock } from '../../src/pipeline/lock.js';
import { hashProjectFiles } from '../../src/pipeline/plan.js';
import * as PlanCacheModule from '../../src/pipeline/plan-cache.js';
import { LOCK_VERSION, type Lock, type Manifest, type ManifestAsset } from '../../src/pipeline/records.js';
import { afterFileSystemTick, tempDir, writeFiles } from './helpers.js';

const { PLAN_CACHE_DIR, PlanCache } = PlanCacheModule;
/** The compiled module the CLI runs: a cache names the program that made it, so one to forge for the CLI is made by the same. */
const { PlanCache: CompiledPlanCache } = (await import(
  pathToFileURL(path.resolve(import.meta.dirname, '../../dist/pipeline/plan-cache.js')).href
)) as typeof PlanCacheModule;

const project = useMockProject({ mock: { credits: 100_000 }, config: {} });

const MANIFEST = `vars:
  place: a flooded dungeon
defaults:
  agent: sprite-artist
  out: assets/
  style: pixel art
assets:
  - id: kept
    prompt: a kept sword from \${place}
  - id: edited
    prompt: an edited shield
  - id: missing
    prompt: a missing helmet
  - id: changed
    prompt: a changed potion
  - id: gone
    prompt: a gone scroll
`;

type Plan = { counts: Record<string, number>; items: { id: string; status: string; reasons: string[] }[] };

const cacheDir = (): string => path.join(project.cwd, PLAN_CACHE_DIR);
const file = (name: string): string => path.join(project.cwd, name);

/** The built CLI's dry run, its --json document (exit 0 asserted). */
async function dryRun(): Promise<Plan & { text: string }> {
  const result = await runInProcess(['build', '--dry-run', '--json', '-q'], { env: project.env(), cwd: project.cwd });
  expect(result.code, result.stderr).toBe(0);
  return { ...(JSON.parse(result.stdout) as Plan), text: result.stdout };
}

const statusOf = (plan: Plan, id: string): string | undefined => plan.items.find((item) => item.id === id)?.status;

/** The plan without a cache: the folder removed first (and made again by the run). */
async function planWithoutCache(): Promise<string> {
  fs.rmSync(cacheDir(), { recursive: true, force: true });
  return (await dryRun()).text;
}

/** Every asset of MANIFEST built (paid, against the mock), the outputs' mtimes set to a whole second in the past. */
async function built(): Promise<string[]> {
  fs.writeFileSync(file('assetgen.yaml'), MANIFEST);
  const result = await project.run(['build', '-q']);
  expect(result.code, result.stderr).toBe(0);
  const outputs = fs.readdirSync(file('assets')).map((name) => file(`assets/${name}`));
  const second = Math.floor(Date.now() / 1000) - 100;
  for (const output of outputs) fs.utimesSync(output, second, second);
  await afterFileSystemTick(outputs);
  return outputs;
}

/** assets/kept.png edited in place, the same size (so a forged entry can claim the hash the lock recorded). */
async function editKeptInPlace(): Promise<string> {
  const sword = file('assets/kept.png');
  const bytes = fs.readFileSync(sword);
  bytes[bytes.length - 1] ^= 0xff;
  fs.writeFileSync(sword, bytes);
  await afterFileSystemTick([sword]);
  return sword;
}

/**
 * A cache under `key` (made as the CLI makes it, by its compiled module) that lies: it vouches for
 * the edited assets/kept.png with the hash the lock recorded before the edit. Returns its files.bin.
 */
function forgeCache(key: Buffer): string {
  const sword = file('assets/kept.png');
  const lock = JSON.parse(fs.readFileSync(file('assetgen.lock'), 'utf8')) as Lock;
  const { sha256, size } = lock.assets.kept.files[0];
  fs.rmSync(cacheDir(), { recursive: true, force: true });
  const cache = CompiledPlanCache.open(project.cwd, key);
  cache.beginHashing();
  cache.record('assets/kept.png', { sha256, size }, fileStamp(fs.statSync(sword, { bigint: true })));
  cache.save();
  return path.join(cacheDir(), 'files.bin');
}

/**
 * The bound of a test of eight or more CLI runs in a row: ~1 s each on a quiet machine, ~4 s at a
 * load of 20 on two cores, where the suite's 30 s cut two of them short (npm test beside the flake hunt).
 */
const MANY_RUNS = { timeout: 90_000 };

const ownKey = (): Buffer => fs.readFileSync(path.join(project.env().ASSETGEN_STATE_DIR!, 'plan-cache.key'));

describe('a warm plan cache never changes the plan', () => {
  it('the same --json document as without a cache, on a project with every state (up to date, edited, missing, changed, new, gone)', async () => {
    await built();
    fs.writeFileSync(file('assets/edited.png'), 'edited by hand');
    fs.rmSync(file('assets/missing.png'));
    fs.writeFileSync(
      file('assetgen.yaml'),
      MANIFEST.replace('a changed potion', 'a changed potion, now blue')
        .replace('  - id: gone\n    prompt: a gone scroll\n', '')
        .concat('  - id: fresh\n    prompt: a fresh map\n'),
    );
    const without = await planWithoutCache();
    expect(fs.existsSync(path.join(cacheDir(), 'files.bin'))).toBe(true);
    const warm = await dryRun();
    expect(warm.text).toBe(without);
    expect(warm.counts).toEqual({ 'up-to-date': 1, edited: 1, missing: 1, changed: 1, new: 1, removed: 1 });
    // And once more, each run from the cache the run before left.
    expect((await dryRun()).text).toBe(without);
  });

  it('an output edited in place with the same size and its mtime restored is seen as edited (its ctime moved)', async () => {
    await built();
    expect((await dryRun()).counts).toEqual({ 'up-to-date': 5 });
    expect((await dryRun()).counts).toEqual({ 'up-to-date': 5 });
    const sword = file('assets/kept.png');
    const before = fs.statSync(sword, { bigint: true });
    const bytes = fs.readFileSync(sword);
    bytes[bytes.length - 1] ^= 0xff;
    fs.writeFileSync(sword, bytes);
    fs.utimesSync(sword, Number(before.atimeNs / 1_000_000_000n), Number(before.mtimeNs / 1_000_000_000n));
    const after = fs.statSync(sword, { bigint: true });
    // The premise: only the ctime tells this edit (size, mtime, inode, device as they were).
    expect([after.size, after.mtimeNs, after.ino, after.dev]).toEqual([before.size, before.mtimeNs, before.ino, before.dev]);
    expect(after.ctimeNs).not.toBe(before.ctimeNs);
    const plan = await dryRun();
    expect(statusOf(plan, 'kept')).toBe('edited');
    expect(plan.text).toBe(await planWithoutCache());
  });

  it('a manifest edit, a template edit (a var, the style) and a lock edit are each seen', MANY_RUNS, async () => {
    await built();
    expect((await dryRun()).counts).toEqual({ 'up-to-date': 5 });
    fs.writeFileSync(file('assetgen.yaml'), MANIFEST.replace('an edited shield', 'an edited round shield'));
    let plan = await dryRun();
    expect(plan.counts).toEqual({ 'up-to-date': 4, changed: 1 });
    expect(statusOf(plan, 'edited')).toBe('changed');

    fs.writeFileSync(file('assetgen.yaml'), MANIFEST.replace('place: a flooded dungeon', 'place: a dry cave'));
    plan = await dryRun();
    expect(plan.counts).toEqual({ 'up-to-date': 4, changed: 1 });
    expect(statusOf(plan, 'kept')).toBe('changed');

    fs.writeFileSync(file('assetgen.yaml'), MANIFEST.replace('style: pixel art', 'style: oil painting'));
    expect((await dryRun()).counts).toEqual({ changed: 5 });

    fs.writeFileSync(file('assetgen.yaml'), MANIFEST);
    expect((await dryRun()).counts).toEqual({ 'up-to-date': 5 });
    // A lock whose recorded hash of one file is edited: that file no longer matches it.
    const lock = JSON.parse(fs.readFileSync(file('assetgen.lock'), 'utf8')) as Lock;
    lock.assets.missing.files[0].sha256 = 'f'.repeat(64);
    fs.writeFileSync(file('assetgen.lock'), serializeLock(lock));
    plan = await dryRun();
    expect(statusOf(plan, 'missing')).toBe('edited');
    // A lock edited into one its checks refuse is refused, however warm the cache.
    lock.assets.missing.files[0].path = '../outside.png';
    fs.writeFileSync(file('assetgen.lock'), serializeLock(lock));
    const refused = await runInProcess(['build', '--dry-run', '--json', '-q'], { env: project.env(), cwd: project.cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not a path inside the project');
  });
});

describe('a cache it cannot trust is ignored and made again', () => {
  it('corrupt, truncated, another version or another user: the plan without a cache, the cache rewritten', MANY_RUNS, async () => {
    await built();
    fs.writeFileSync(file('assets/edited.png'), 'edited by hand');
    const without = await planWithoutCache();
    const files = path.join(cacheDir(), 'files.bin');
    const good = fs.readFileSync(files);
    const newline = good.indexOf(10);
    const header = JSON.parse(good.subarray(0, newline).toString()) as { code: string };
    const spoilt: [string, Buffer][] = [
      ['a byte of its content flipped', Buffer.concat([good.subarray(0, -1), Buffer.from([good[good.length - 1] ^ 1])])],
      ['truncated', good.subarray(0, Math.floor(good.length / 2))],
      ['its header only', good.subarray(0, newline + 1)],
      ['empty', Buffer.alloc(0)],
      ['not ours at all', Buffer.from('{"hello": "world"}\n\u0000\u0001garbage')],
      [
        'made by another version',
        Buffer.concat([Buffer.from(JSON.stringify({ ...header, code: header.code.replace(/^[^/]+/, '0.0.1') })), good.subarray(newline)]),
      ],
    ];
    for (const [what, bytes] of spoilt) {
      fs.writeFileSync(files, bytes);
      for (const name of fs.readdirSync(cacheDir()).filter((n) => n.startsWith('manifest-')))
        fs.writeFileSync(path.join(cacheDir(), name), bytes);
      expect((await dryRun()).text, what).toBe(without);
      // Made again.
      expect(fs.readFileSync(files).equals(bytes), what).toBe(false);
    }
    // Another user's key (another state folder): the whole cache is foreign, and made again.
    const other = { ...project.env(), ASSETGEN_STATE_DIR: path.join(project.home.home, 'other-state') };
    const result = await runInProcess(['build', '--dry-run', '--json', '-q'], { env: other, cwd: project.cwd });
    expect(result.stdout).toBe(without);
  });

  it('a cache that vouches for an edited file is trusted only under this user key: one forged with another key is not', async () => {
    await built();
    await editKeptInPlace();
    expect(statusOf(await dryRun(), 'kept')).toBe('edited');
    forgeCache(Buffer.alloc(32, 7));
    expect(statusOf(await dryRun(), 'kept')).toBe('edited');
    // The same lie under the user's own key is believed (the key is what keeps a forged cache out).
    forgeCache(ownKey());
    expect(statusOf(await dryRun(), 'kept')).toBe('up-to-date');
  });

  it('a cache folder, or a cache file, that is a symbolic link out of the project: the plan without a cache, nothing written outside', async () => {
    await built();
    await editKeptInPlace();
    const without = await planWithoutCache();
    expect(statusOf(JSON.parse(without) as Plan, 'kept')).toBe('edited');
    // Outside the project, a cache that would be believed were it inside: it vouches for the edit.
    const outside = path.join(project.home.home, 'outside');
    fs.mkdirSync(outside);
    fs.renameSync(forgeCache(ownKey()), path.join(outside, 'files.bin'));
    const lie = fs.readFileSync(path.join(outside, 'files.bin'));
    const untouched = (): void => {
      expect(fs.readdirSync(outside)).toEqual(['files.bin']);
      expect(fs.readFileSync(path.join(outside, 'files.bin')).equals(lie)).toBe(true);
    };
    // The cache folder a link to that folder.
    fs.rmSync(cacheDir(), { recursive: true });
    fs.symlinkSync(outside, cacheDir());
    expect((await dryRun()).text).toBe(without);
    untouched();
    // The cache file a link to that file, then a dangling link.
    fs.rmSync(cacheDir());
    fs.mkdirSync(cacheDir());
    fs.symlinkSync(path.join(outside, 'files.bin'), path.join(cacheDir(), 'files.bin'));
    expect((await dryRun()).text).toBe(without);
    expect(fs.lstatSync(path.join(cacheDir(), 'files.bin')).isSymbolicLink()).toBe(true);
    untouched();
    fs.rmSync(path.join(cacheDir(), 'files.bin'));
    fs.symlinkSync(path.join(outside, 'made.bin'), path.join(cacheDir(), 'files.bin'));
    expect((await dryRun()).text).toBe(without);
    untouched();
    // .assetgen itself a link out (to a folder whose cache/ is the lying folder): the same.
    fs.rmSync(file('.assetgen'), { recursive: true });
    fs.mkdirSync(path.join(project.home.home, 'dot'));
    fs.symlinkSync(outside, path.join(project.home.home, 'dot', 'cache'));
    fs.symlinkSync(path.join(project.home.home, 'dot'), file('.assetgen'));
    expect((await dryRun()).text).toBe(without);
    untouched();
    expect(fs.readdirSync(path.join(project.home.home, 'dot'))).toEqual(['cache']);
  });
});

describe('the cache itself (src/pipeline/plan-cache.ts)', () => {
  const KEY = Buffer.alloc(32, 1);
  const ids = ['a', 'b', 'c'];

  /** Three files and a lock recording them, as a manifest planning reads them. */
  async function smallProject(root: string): Promise<{ manifest: Manifest; lock: Lock }> {
    writeFiles(root, Object.fromEntries(ids.map((id) => [`assets/${id}.png`, `bytes of ${id}`])));
    const hashes = await hashFiles(
      root,
      ids.map((id) => `assets/${id}.png`),
    );
    const assets: ManifestAsset[] = ids.map((id) => ({
      id,
      kind: 'image',
      agent: 'sprite-artist',
      prompt: id,
      out: { type: 'folder', dir: 'assets' },
      position: { line: 1, col: 1 },
    }));
    const lock: Lock = { lockfileVersion: LOCK_VERSION, assets: {} };
    for (const asset of assets) {
      const name = `assets/${asset.id}.png`;
      lock.assets[asset.id] = {
        kind: 'image',
        spec: specHash(asset, 'mock'),
        specParts: specParts(asset),
        files: [{ path: name, ...hashes.get(name)! }],
      };
    }
    return { manifest: { file: path.join(root, 'assetgen.yaml'), root, assets }, lock };
  }

  it('hashes a file once: later plans stat it and reuse its hash, until it changes', async () => {
    const root = tempDir();
    const { manifest, lock } = await smallProject(root);
    await afterFileSystemTick(ids.map((id) => path.join(root, `assets/${id}.png`)));
    const plan = async (): Promise<PlanCacheModule.PlanCache> => {
      const cache = PlanCache.open(root, KEY);
      await hashProjectFiles(manifest, lock, undefined, cache);
      return cache;
    };
    expect((await plan()).stats).toMatchObject({ trusted: 0, hashed: 3, written: 1 });
    expect((await plan()).stats).toMatchObject({ trusted: 3, hashed: 0, written: 0 });
    fs.writeFileSync(path.join(root, 'assets/b.png'), 'other bytes');
    await afterFileSystemTick([path.join(root, 'assets/b.png')]);
    expect((await plan()).stats).toMatchObject({ trusted: 2, hashed: 1, written: 1 });
    expect((await plan()).stats).toMatchObject({ trusted: 3, hashed: 0, written: 0 });
    // Without a key, nothing is kept.
    const off = PlanCache.open(root, undefined);
    await hashProjectFiles(manifest, lock, undefined, off);
    expect(off.stats).toMatchObject({ manifest: 'off', trusted: 0, hashed: 3, written: 0 });
  });

  it('a file changed in or after the tick its hashing began is not recorded (racy): it is hashed again next time', async () => {
    const root = tempDir();
    const { manifest, lock } = await smallProject(root);
    // a and b written before the tick the hashing begins in (the file system's clock is coarse: written
    // in the same tick, they would be racy too, and hashed again).
    await afterFileSystemTick(ids.map((id) => path.join(root, `assets/${id}.png`)));
    const cache = PlanCache.open(root, KEY);
    cache.beginHashing();
    // Changed after the clock was read: its ctime is at or past that moment, whatever the granularity.
    fs.writeFileSync(path.join(root, 'assets/c.png'), 'bytes of c');
    await hashProjectFiles(manifest, lock, undefined, cache);
    expect(cache.stats.hashed).toBe(3);
    const next = PlanCache.open(root, KEY);
    await hashProjectFiles(manifest, lock, undefined, next);
    expect(next.stats).toMatchObject({ hashed: 1 });
  });
});
