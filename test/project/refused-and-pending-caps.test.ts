// Two ways a build's paid call can be charged without an answer that says so, held to the ledger
// at -j 16: a resumed job's key (sent by an earlier build) whose attempt is carried out and lost
// before any header, the retry's replay restating the charge — which may have been this build's —
// and an answer refused as a protocol error (an absurd balance) whose headers said what it
// charged. --max-credits counts both, so the ledger never passes the cap.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonError, parseJson, runInProcess, tempHome } from '../support/cli.js';
import { chargingService, GENERATE_PRICE, PNG, VIDEO_PRICE } from '../support/charging-service.js';
import { learnedPrices } from '../../src/config/learned-prices.js';
import { serviceId } from '../../src/pipeline/hash.js';
import { readLock } from '../../src/pipeline/lock.js';
import { json, KEY, reset, startServer, type Handler, type TestServer } from '../support/http.js';

const GENERATE = '/api/v1/generate';
let home: ReturnType<typeof tempHome> | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  home?.remove();
  server = home = undefined;
});

async function buildAgainst(handler: Handler, manifest: string, args: string[]) {
  server ??= await startServer(handler);
  home ??= tempHome();
  fs.writeFileSync(path.join(home.cwd, 'assetgen.yaml'), manifest);
  return runInProcess(['build', '--yes', '--timeout', '25s', '--json', ...args], {
    cwd: home.cwd,
    env: { ...home.env, ASSETGEN_BASE_URL: server.url, ASSETGEN_API_KEY: KEY },
  });
}

const images = (count: number) =>
  `prices: { agents: { icon-forge: ${GENERATE_PRICE} } }\ndefaults: { agent: icon-forge, out: assets/ }\nassets:\n${Array.from({ length: count }, (_, i) => `  - { id: img${i + 1}, prompt: icon ${i + 1} }\n`).join('')}`;

describe('a resumed key whose attempt was carried out and lost, the replay restating its charge', () => {
  it('-j 16 --max-credits 10: the ledger stays at 10, the charge reported as not known (unknownCharges), not 0', async () => {
    const phase = { unreachable: true };
    // The first build's calls never reach the service (nothing charged, the keys pending in the lock);
    // then each key's first arrival is charged and its connection dropped before any header.
    const service = chargingService({ balance: 10_000, drop: (arrival) => arrival.path === GENERATE && !arrival.replay });
    const handler: Handler = (req, res, seen, index) =>
      phase.unreachable && seen.method === 'POST' ? reset(res) : service.handler(req, res, seen, index);
    const first = await buildAgainst(handler, images(3), ['-j', '16']);
    expect(first.code).not.toBe(0);
    expect(service.spent()).toBe(0);
    phase.unreachable = false;
    const second = await buildAgainst(handler, images(3), ['-j', '16', '--max-credits', '10']);
    expect(service.spent()).toBeLessThanOrEqual(10);
    expect(second.code, second.stderr).toBe(8);
    const credits = parseJson(second).credits;
    expect(credits.charged + credits.unknownCharges * GENERATE_PRICE).toBeGreaterThanOrEqual(service.spent());
    expect(credits.unknownCharges).toBeGreaterThanOrEqual(1);
  });
});

describe('a paid answer refused as a protocol error, its headers saying what it charged', () => {
  it('-j 16 --max-credits 200, four videos, each answer with X-Credits-Remaining -20: the ledger stops at one video', async () => {
    const ledger: number[] = [];
    const handler: Handler = (_req, res, seen) => {
      if (seen.method !== 'POST') return json(res, 404, { error: { code: 'not_found', message: 'No such job.' } });
      ledger.push(VIDEO_PRICE);
      return json(
        res,
        202,
        { id: `vid_${ledger.length}`, status: 'queued' },
        { 'x-credits-charged': String(VIDEO_PRICE), 'x-credits-remaining': '-20' },
      );
    };
    const videos = `assets:\n${[1, 2, 3, 4].map((i) => `  - { id: vid${i}, video: torch ${i}, out: assets/fx/ }\n`).join('')}`;
    const result = await buildAgainst(handler, videos, ['-j', '16', '--max-credits', '200']);
    expect(result.code).not.toBe(0);
    expect(ledger.reduce((sum, amount) => sum + amount, 0)).toBe(VIDEO_PRICE);
    const document = result.stdout.trim() ? parseJson(result) : { credits: jsonError(result).credits };
    expect(document.credits.charged).toBe(VIDEO_PRICE);
  });
});

describe('a service that does not honour Idempotency-Key, the first answer cut after its headers said 10', () => {
  /** Every POST charged 10 (keys ignored); the first one's body cut after its headers. */
  function ignoringKeys() {
    const ledger: number[] = [];
    const handler: Handler = (_req, res, seen) => {
      if (seen.method === 'GET') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
        return res.end(PNG);
      }
      ledger.push(GENERATE_PRICE);
      const id = `gen_${ledger.length}`;
      const text = JSON.stringify({ id, status: 'succeeded', output: { url: `/files/${id}.png`, contentType: 'image/png' } });
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        'x-credits-charged': String(GENERATE_PRICE),
        'x-credits-remaining': String(1000 - GENERATE_PRICE * ledger.length),
      });
      if (ledger.length > 1) return res.end(text);
      res.write(text.slice(0, 5));
      setImmediate(() => res.socket?.destroy());
    };
    return { handler, spent: () => ledger.reduce((sum, amount) => sum + amount, 0) };
  }

  it('uncapped: both charges counted (20, the ledger), the lock 20, one call learned at 10 (not 20)', async () => {
    const service = ignoringKeys();
    const result = await buildAgainst(service.handler, images(1), ['-j', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(service.spent()).toBe(2 * GENERATE_PRICE);
    expect(parseJson(result).credits.charged).toBe(service.spent());
    expect(readLock(path.join(home!.cwd, 'assetgen.lock')).assets.img1!.credits).toBe(2 * GENERATE_PRICE);
    expect(learnedPrices(serviceId(server!.url), home!.env).agents['icon-forge']).toBe(GENERATE_PRICE);
  });

  it('-j 16 --max-credits 10: the retry is asked of the cap, refused: the ledger 10, the asset capped, its key kept', async () => {
    const service = ignoringKeys();
    const result = await buildAgainst(service.handler, images(1), ['-j', '16', '--max-credits', '10']);
    expect(result.code, result.stderr).toBe(8);
    expect(service.spent()).toBe(GENERATE_PRICE);
    expect(parseJson(result).credits.charged).toBe(GENERATE_PRICE);
    expect(parseJson(result).items).toMatchObject([{ id: 'img1', outcome: 'capped' }]);
    expect(readLock(path.join(home!.cwd, 'assetgen.lock')).assets.img1!.job?.idempotencyKey).toEqual(expect.any(String));
  });
});
