// A service that puts credits in its `X-Credits-*` headers only (the service document shows no
// response bodies): a replayed answer then says what the replay cost (0), never what the call that
// paid for its key was charged. Every call that generates something is charged (service-api §1), so
// that 0 is not a price: the asset's cost is not known (null in the lock, never fed to an estimate),
// no price is learned from it (this machine's store, a remote cache's entries), and --max-credits
// counts the call at the price it held for it, so the ledger never passes the cap, at -j 1 or 16.
// The replay comes after a first attempt whose connection dropped before any answer (charged, no
// headers back), or in the build after one that died while its call was out (its key pending).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { learnedPrices, learnedPricesPath, rememberPrices } from '../../src/config/learned-prices.js';
import { cachedPrices } from '../../src/commands/project/remote.js';
import { serviceId } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';
import { parseJson, runInProcess, tempHome, type CliResult } from '../support/cli.js';
import { chargingService, GENERATE_PRICE, type Arrival, type ChargingService } from '../support/charging-service.js';
import { startServer, type TestServer } from '../support/http.js';
import { startRemoteCache, type RemoteCacheServer } from '../support/remote-cache.js';

const AGENT = 'icon-forge';
const GENERATE = '/api/v1/generate';

/** The first attempt of each key (charged) loses its connection before any answer: the client's retry is a replay. */
const dropFirstAttempt = (arrival: Arrival): boolean => arrival.path === GENERATE && !arrival.replay;
/** Every attempt of each key loses its connection: the first one charged, the build fails with its keys pending (as after kill -9). */
const dropEveryAttempt = (arrival: Arrival): boolean => arrival.path === GENERATE;

const images = (ids: readonly string[], extra = ''): string =>
  `${extra}defaults: { agent: ${AGENT}, out: assets/ }\nassets:\n${ids.map((id) => `  - { id: ${id}, prompt: ${id} in pixel art }\n`).join('')}`;
const ids = (count: number, from = 1): string[] => Array.from({ length: count }, (_, i) => `img${from + i}`);

let homes: ReturnType<typeof tempHome>[] = [];
let servers: TestServer[] = [];
beforeEach(() => {
  homes = [];
  servers = [];
});
afterEach(async () => {
  for (const server of servers) await server.close();
  for (const home of homes) home.remove();
});

/** A headers-only charging service whose drops can change between builds, on one URL (one service for learned prices). */
async function headersOnlyService(): Promise<{ service: ChargingService; server: TestServer; drop: { rule?: (a: Arrival) => boolean } }> {
  const drop: { rule?: (a: Arrival) => boolean } = {};
  const service = chargingService({ creditsInBody: false, balance: 10_000, drop: (arrival) => drop.rule?.(arrival) ?? false });
  const server = await startServer(service.handler);
  servers.push(server);
  return { service, server, drop };
}

/** A project (its own home: its own state dir, unless `home` is shared) with this manifest. */
function project(manifest: string, home = tempHome()): { cwd: string; env: NodeJS.ProcessEnv } {
  if (!homes.includes(home)) homes.push(home);
  const cwd = fs.mkdtempSync(path.join(home.home, 'project-'));
  fs.writeFileSync(path.join(cwd, 'assetgen.yaml'), manifest);
  return { cwd, env: home.env };
}

function build(where: { cwd: string; env: NodeJS.ProcessEnv }, server: TestServer, args: string[], more: NodeJS.ProcessEnv = {}) {
  return runInProcess(['build', '--yes', '--timeout', '25s', ...args], {
    cwd: where.cwd,
    env: { ...where.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: 'agk_test_0123456789abcdef0123456789abcdef', ...more },
  });
}

const lockCosts = (cwd: string): Record<string, number | null | undefined> =>
  Object.fromEntries(Object.entries(readLock(path.join(cwd, 'assetgen.lock')).assets).map(([id, entry]) => [id, entry.credits]));
const storedPrices = (env: NodeJS.ProcessEnv): string =>
  fs.existsSync(learnedPricesPath(env)) ? fs.readFileSync(learnedPricesPath(env), 'utf8') : '';
const items = (result: CliResult): { id: string; outcome: string; cost?: number | null }[] => parseJson(result).items;

describe('a replay that does not restate its original charge (credits in headers only)', () => {
  it('after a dropped first attempt: cost not known (null), no price learned, and a later capped build at -j 16 stays within the cap', async () => {
    const { service, server, drop } = await headersOnlyService();
    const home = tempHome();
    const a = project(images(ids(2)), home);
    drop.rule = dropFirstAttempt;
    const first = await build(a, server, ['-j', '1', '--json']);
    expect(first.code, first.stderr).toBe(0);
    // Each key charged once (its dropped first attempt); each retry a replay, charged 0.
    expect(service.spent()).toBe(2 * GENERATE_PRICE);
    expect(items(first)).toMatchObject([
      { id: 'img1', outcome: 'built', cost: null },
      { id: 'img2', outcome: 'built', cost: null },
    ]);
    expect(lockCosts(a.cwd)).toEqual({ img1: null, img2: null });
    // Never learned as a price: not in this machine's store at all (no 0 there).
    expect(learnedPrices(serviceId(server.url), a.env).agents[AGENT]).toBeUndefined();
    expect(storedPrices(a.env)).not.toMatch(/"icon-forge":\s*0/);

    // Another project on this machine: the price is unknown, so a capped dry run says so (exit 8).
    const other = project(images(['other']), home);
    const dry = await runInProcess(['build', '--dry-run', '--max-credits', '5'], {
      cwd: other.cwd,
      env: { ...other.env, ASSETGEN_BASE_URL: server.url },
    });
    expect(dry.code, dry.stderr).toBe(8);
    expect(dry.stderr).toContain('icon-forge ? (unknown)');
    expect(dry.stderr).not.toContain('Within the budget');

    // Ten more images, the service answering every call now: the cap holds for the ledger at -j 16.
    drop.rule = undefined;
    fs.writeFileSync(path.join(a.cwd, 'assetgen.yaml'), images(ids(12)));
    const before = service.spent();
    const second = await build(a, server, ['-j', '16', '--max-credits', '15', '--json']);
    expect(service.spent() - before).toBeLessThanOrEqual(15);
    expect(second.code, second.stderr).toBe(8);
    expect(parseJson(second).credits.charged).toBe(service.spent() - before);
  });

  it('in the build after one that died with its calls out (keys pending): the replays record null, teach no price', async () => {
    const { service, server, drop } = await headersOnlyService();
    const a = project(images(ids(2)));
    drop.rule = dropEveryAttempt;
    const died = await build(a, server, ['-j', '1', '--json']);
    expect(died.code, died.stderr).toBe(1);
    expect(service.spent()).toBe(2 * GENERATE_PRICE);
    const pending = readLock(path.join(a.cwd, 'assetgen.lock')).assets;
    expect(Object.values(pending).map((entry) => [entry.job?.idempotencyKey !== undefined, entry.job?.credits])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);

    drop.rule = undefined;
    const resumed = await build(a, server, ['-j', '16', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The keys were asked again: replays, nothing charged twice.
    expect(service.spent()).toBe(2 * GENERATE_PRICE);
    expect(items(resumed)).toMatchObject([
      { id: 'img1', outcome: 'resumed', cost: null },
      { id: 'img2', outcome: 'resumed', cost: null },
    ]);
    expect(lockCosts(a.cwd)).toEqual({ img1: null, img2: null });
    expect(learnedPrices(serviceId(server.url), a.env).agents[AGENT]).toBeUndefined();
  });

  for (const jobs of ['1', '16']) {
    it(`-j ${jobs}: --max-credits counts each such answer at the price it held (learned 10), so the ledger stops within the cap`, async () => {
      const { service, server, drop } = await headersOnlyService();
      const a = project(images(ids(8)));
      // A price this machine learned earlier, from answers that said it.
      rememberPrices(serviceId(server.url), { agents: { [AGENT]: GENERATE_PRICE } }, a.env);
      drop.rule = dropFirstAttempt;
      const capped = await build(a, server, ['-j', jobs, '--max-credits', '35', '--json']);
      expect(service.spent()).toBeLessThanOrEqual(35);
      expect(service.spent()).toBe(30);
      expect(capped.code, capped.stderr).toBe(8);
      const outcomes = items(capped);
      expect(outcomes.filter((item) => item.outcome === 'built').map((item) => item.cost)).toEqual([null, null, null]);
      expect(outcomes.filter((item) => item.outcome === 'capped')).toHaveLength(5);
      // The learned price stands: an answer that did not say one never replaces it.
      expect(learnedPrices(serviceId(server.url), a.env).agents[AGENT]).toBe(GENERATE_PRICE);
    });

    it(`-j ${jobs}: a declared price is never "confirmed" by such an answer: the ledger stops within the cap`, async () => {
      const { service, server, drop } = await headersOnlyService();
      const a = project(images(ids(8), `prices: { agents: { ${AGENT}: ${GENERATE_PRICE} } }\n`));
      drop.rule = dropFirstAttempt;
      const capped = await build(a, server, ['-j', jobs, '--max-credits', '35', '--json']);
      expect(service.spent()).toBeLessThanOrEqual(35);
      expect(capped.code, capped.stderr).toBe(8);
      expect(Object.values(lockCosts(a.cwd)).filter((cost) => cost !== undefined)).toEqual([null, null, null]);
      expect(learnedPrices(serviceId(server.url), a.env).agents[AGENT]).toBeUndefined();
    });
  }
});

describe('the remote cache never carries such a 0 as a price', () => {
  let cache: RemoteCacheServer | undefined;
  afterEach(async () => {
    await cache?.close();
    cache = undefined;
  });

  it('cachedPrices leaves a 0 out', () => {
    const charges = new Map([
      [`image\u0000${AGENT}`, 0],
      ['image\u0000sprite-artist', 12],
      ['workflow\u0000wf_tileset', 0],
    ]);
    expect(cachedPrices(charges)).toEqual({ agents: { 'sprite-artist': 12 }, workflows: {} });
  });

  it('an entry recorded at 0 (an older assetgen) is uploaded as null; the machine that restores it learns no price', async () => {
    cache = await startRemoteCache();
    const withCache = { ASSETGEN_REMOTE_CACHE_URL: cache.url, ASSETGEN_REMOTE_CACHE_TOKEN: cache.token };
    const { service, server } = await headersOnlyService();
    const manifest = images(['sword']);
    // Built without the cache, its lock then says 0 as an older assetgen recorded a replay's charge.
    const a = project(manifest);
    expect((await build(a, server, ['--json'])).code).toBe(0);
    const file = path.join(a.cwd, 'assetgen.lock');
    const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
    lock.assets.sword.credits = 0;
    fs.writeFileSync(file, JSON.stringify(lock, null, 2));
    // Up to date: the build uploads it.
    const upload = await build(a, server, ['--json'], withCache);
    expect(upload.code, upload.stderr).toBe(0);
    const spent = service.spent();

    // Another machine with the same manifest: restored for 0 credits, its cost not known, no price learned.
    const b = project(manifest);
    const restored = await build(b, server, ['--json'], withCache);
    expect(restored.code, restored.stderr).toBe(0);
    expect(items(restored)).toMatchObject([{ id: 'sword', outcome: 'restored' }]);
    expect(service.spent()).toBe(spent);
    expect(lockCosts(b.cwd)).toEqual({ sword: null });
    expect(learnedPrices(serviceId(server.url), b.env).agents[AGENT]).toBeUndefined();
  });
});
