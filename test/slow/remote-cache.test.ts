// A fresh checkout pays nothing (issue 28): the real self-hosted Turborepo remote-cache server
// (`turborepo-remote-cache`, in this process, local storage), the bundled mock with its ledger, and
// the real CLI (dist/). Project A builds 5 assets with the cache; the mock restarts on the same host
// and port (it forgets every idempotency key, as a real service does); a fresh clone B with A's lock
// and no asset files restores everything for 0 credits; a branch C building one of A's specs that
// its lock lacks restores it from the spec entry. A wrong signature key, or bytes replaced on the
// server, are misses: never written, the asset paid for as without a cache.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactHash } from '../../src/cache/remote-cache.js';
import { serviceId, sha256 } from '../../src/pipeline/hash.js';
import { learnedPrices } from '../../src/config/learned-prices.js';
import { readLock } from '../../src/pipeline/lock.js';
import { entryFiles } from '../../src/pipeline/remote.js';
import { parseJson, runCli, tempHome, type CliResult } from '../support/cli.js';
import { startMock, type MockHandle } from '../support/mock.js';
import { startRemoteCache, type RemoteCacheServer } from '../support/remote-cache.js';

const ASSETS = [
  '  - { id: sword, prompt: rusty sword, agent: icon-forge, out: assets/icons/ }',
  '  - { id: shield, prompt: oak shield, agent: icon-forge, out: assets/icons/, post: [trim] }',
  '  - { id: gem, prompt: red gem, agent: sprite-artist, out: assets/icons/, variants: 2 }',
  '  - { id: tiles, workflow: wf_tileset, set: { theme: "mossy ruins" }, out: assets/tiles/ }',
  '  - { id: torch, video: "torch flickering", out: assets/fx/ }',
];
const MANIFEST = `assets:\n${ASSETS.join('\n')}\n`;
const MOCK_CONFIG = { credits: 100_000, videoPollAfterMs: 30, videoSteps: 2, faults: { rate: 0 } };

let mock: MockHandle;
let port: number;
let cache: RemoteCacheServer;
let signed: RemoteCacheServer;
const homes: ReturnType<typeof tempHome>[] = [];

beforeAll(async () => {
  mock = await startMock({ credits: 100_000 });
  await mock.config(MOCK_CONFIG);
  port = Number(new URL(mock.url).port);
  cache = await startRemoteCache();
  signed = await startRemoteCache({ signatureKey: 'the-studio-signing-key' });
});
afterAll(async () => {
  await mock?.close();
  await cache?.close();
  await signed?.close();
  for (const home of homes) home.remove();
});

/** The mock restarted on the same host and port: the same service (the same specs), every key forgotten. */
async function restartMock(): Promise<void> {
  await mock.close();
  mock = await startMock({ port, credits: 100_000 });
  await mock.config(MOCK_CONFIG);
  expect(mock.url).toBe(`http://127.0.0.1:${port}`);
}

/** A project folder with these files (a clone: the manifest and the lock, no asset files). */
function projectWith(files: Record<string, string>): { cwd: string; env: (server: RemoteCacheServer, key?: string) => NodeJS.ProcessEnv } {
  const home = tempHome();
  homes.push(home);
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(home.cwd, file), text);
  return {
    cwd: home.cwd,
    env: (server, key) => ({
      ...home.env,
      ASSETGEN_BASE_URL: mock.url,
      ASSETGEN_API_KEY: mock.apiKey,
      ASSETGEN_REMOTE_CACHE_URL: server.url,
      ASSETGEN_REMOTE_CACHE_TOKEN: server.token,
      ...(key ? { ASSETGEN_REMOTE_CACHE_SIGNATURE_KEY: key } : {}),
    }),
  };
}

async function cli(args: string[], where: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  const result = await runCli(args, { ...where, timeoutMs: 120_000 });
  expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result;
}

/** Every file the lock names (outputs, kept originals, kept takes), byte-equal to what it records. */
function expectFilesAsLocked(cwd: string): number {
  const files = Object.values(readLock(path.join(cwd, 'assetgen.lock')).assets).flatMap(entryFiles);
  for (const file of files) expect(sha256(fs.readFileSync(path.join(cwd, file.path))), file.path).toBe(file.sha256);
  return files.length;
}

/** Project A, built once with `server` (5 assets paid for, uploaded): its lock's text. */
async function buildA(server: RemoteCacheServer, key?: string): Promise<{ lock: string; cwd: string }> {
  const a = projectWith({ 'assetgen.yaml': MANIFEST });
  const before = (await mock.state()).ledger.length;
  await cli(['build', '--yes'], { cwd: a.cwd, env: a.env(server, key) });
  expect((await mock.state()).ledger.length).toBeGreaterThan(before);
  return { lock: fs.readFileSync(path.join(a.cwd, 'assetgen.lock'), 'utf8'), cwd: a.cwd };
}

describe('the remote cache (the real turborepo-remote-cache server)', () => {
  let aLock: string;

  it('a fresh clone after the service forgot its keys: "5 to restore, 0 credits", then 0 ledger entries and the files as locked', async () => {
    ({ lock: aLock } = await buildA(cache));
    await restartMock();
    const b = projectWith({ 'assetgen.yaml': MANIFEST, 'assetgen.lock': aLock });
    const where = { cwd: b.cwd, env: b.env(cache) };

    const dry = await cli(['build', '--dry-run'], where);
    expect(dry.stderr).toContain('5 to restore from the remote cache, 0 credits');
    expect(dry.stderr).toContain('Estimated cost: 0 credits.');
    const plan = parseJson(await cli(['build', '--dry-run', '--json'], where));
    expect(plan.items.map((item: { action: string }) => item.action)).toEqual(['restore', 'restore', 'restore', 'restore', 'restore']);
    expect(plan.estimate).toEqual({ credits: 0, unknown: [] });
    const markdown = await cli(['build', '--dry-run', '--format', 'markdown'], where);
    expect(markdown.stdout).toContain('5 to restore from the remote cache, 0 credits');
    expect(markdown.stdout).toContain('**Estimated cost:** 0 credits');

    const built = parseJson(await cli(['build', '--json'], where));
    expect(built.totals.restored).toBe(5);
    expect(built.totals.credits).toBe(0);
    expect((await mock.state()).ledger).toEqual([]);
    // Outputs, the kept original of shield, both takes of gem: all back, byte-equal.
    expect(expectFilesAsLocked(b.cwd)).toBeGreaterThanOrEqual(8);
    expect(fs.readFileSync(path.join(b.cwd, 'assetgen.lock'), 'utf8')).toBe(aLock);
    // Up to date now: nothing to restore, nothing to pay.
    expect((await cli(['build', '--dry-run'], where)).stderr).toContain('0 to generate, 0 to resume, 5 up to date');
  });

  it("a branch with one of A's specs not in its lock restores it from the spec entry, 0 credits, and records where it came from", async () => {
    const c = projectWith({ 'assetgen.yaml': `assets:\n${ASSETS[0]}\n` });
    const before = (await mock.state()).ledger.length;
    const dry = await cli(['build', '--dry-run'], { cwd: c.cwd, env: c.env(cache) });
    expect(dry.stderr).toContain('1 to restore from the remote cache, 0 credits');
    await cli(['build'], { cwd: c.cwd, env: c.env(cache) });
    expect((await mock.state()).ledger.length).toBe(before);
    const entry = readLock(path.join(c.cwd, 'assetgen.lock')).assets.sword;
    const aEntry = JSON.parse(aLock).assets.sword;
    expect(entry.restoredFrom).toBe('remote-cache');
    expect(entry.files).toEqual(aEntry.files);
    expect(entry.credits).toBe(aEntry.credits);
    expectFilesAsLocked(c.cwd);
    // The price A was charged travelled in the entry: learned on C's machine for later builds' caps.
    expect(learnedPrices(serviceId(mock.url), c.env(cache)).agents['icon-forge']).toBe(aEntry.credits);
  });

  it('bytes replaced on the server: a miss, never written; the asset paid for as without a cache', async () => {
    const sword = JSON.parse(aLock).assets.sword.files[0];
    const stored = path.join(cache.storage, 'assetgen', artifactHash('file', sword.sha256));
    expect(fs.existsSync(stored)).toBe(true);
    fs.writeFileSync(stored, Buffer.alloc(sword.size, 1));
    const d = projectWith({
      'assetgen.yaml': `assets:\n${ASSETS[0]}\n`,
      'assetgen.lock': JSON.stringify({ lockfileVersion: 1, assets: { sword: JSON.parse(aLock).assets.sword } }),
    });
    const result = await cli(['build'], { cwd: d.cwd, env: d.env(cache) });
    expect(result.stderr).toMatch(
      /Remote cache .*assets\/icons\/sword\.png: the cache sent .* not the .* assetgen\.lock records: not used/,
    );
    const written = fs.readFileSync(path.join(d.cwd, sword.path));
    expect(written.equals(Buffer.alloc(sword.size, 1))).toBe(false);
    expect(readLock(path.join(d.cwd, 'assetgen.lock')).assets.sword.restoredFrom).toBeUndefined();
    expectFilesAsLocked(d.cwd);
  });

  it('signed artifacts: the right key restores; a wrong key is a miss (the branch pays)', async () => {
    const key = 'the-studio-signing-key';
    const { lock } = await buildA(signed, key);
    // With a key, every artifact went up with its tag (the server in signature mode stores tags, and answers 404 without one).
    const tags = fs.readdirSync(path.join(signed.storage, 'assetgen')).filter((name) => name.endsWith('.tag'));
    const artifacts = fs.readdirSync(path.join(signed.storage, 'assetgen')).filter((name) => !name.endsWith('.tag'));
    expect(tags.length).toBe(artifacts.length);
    await restartMock();

    const wrong = projectWith({ 'assetgen.yaml': `assets:\n${ASSETS[0]}\n` });
    const paid = await cli(['build'], { cwd: wrong.cwd, env: wrong.env(signed, 'not-the-key') });
    expect(paid.stderr).toMatch(/Remote cache .*: the entry of spec .* has a signature that does not match the signature key: not used/);
    expect((await mock.state()).ledger.length).toBeGreaterThan(0);
    expect(readLock(path.join(wrong.cwd, 'assetgen.lock')).assets.sword.restoredFrom).toBeUndefined();

    const before = (await mock.state()).ledger.length;
    const right = projectWith({ 'assetgen.yaml': MANIFEST, 'assetgen.lock': lock });
    const restored = parseJson(await cli(['build', '--json'], { cwd: right.cwd, env: right.env(signed, key) }));
    expect(restored.totals.restored).toBe(5);
    expect((await mock.state()).ledger.length).toBe(before);
    expectFilesAsLocked(right.cwd);
  });

  it('assets built before the cache was set reach it with the next build that finds them up to date', async () => {
    const seeding = await startRemoteCache();
    try {
      const d = projectWith({ 'assetgen.yaml': MANIFEST });
      const { ASSETGEN_REMOTE_CACHE_URL: _url, ASSETGEN_REMOTE_CACHE_TOKEN: _token, ...withoutCache } = d.env(seeding);
      await cli(['build', '--yes'], { cwd: d.cwd, env: withoutCache });
      const up = parseJson(await cli(['build', '--json'], { cwd: d.cwd, env: d.env(seeding) }));
      expect(up.totals.unchanged).toBe(5);
      await restartMock();
      const e = projectWith({ 'assetgen.yaml': MANIFEST, 'assetgen.lock': fs.readFileSync(path.join(d.cwd, 'assetgen.lock'), 'utf8') });
      const restored = parseJson(await cli(['build', '--json'], { cwd: e.cwd, env: e.env(seeding) }));
      expect(restored.totals.restored).toBe(5);
      expect((await mock.state()).ledger).toEqual([]);
      expectFilesAsLocked(e.cwd);
    } finally {
      await seeding.close();
    }
  });
});
