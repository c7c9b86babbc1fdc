// With an API key every poll is charged, and the service here charges a poll as it arrives — also
// the one whose connection it then drops without an answer. The client asks again and the retry is
// answered (charged 1): the dropped attempt's charge is not known to assetgen, so `credits` says
// `unknownCharges: 1` and the human line "Charged at least …", never an exact figure one short of
// the ledger. A session's polls (not charged) and a keyed POST (its retry is a replay) stay exact.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonError, parseJson, runInProcess } from '../support/cli.js';
import { chargingService, dropFirstPoll, MP4, POLL_PRICE, VIDEO_PRICE, type ChargingService } from '../support/charging-service.js';
import { KEY, startServer, useScriptedService } from '../support/http.js';

const scripted = useScriptedService(runInProcess);
const SESSION = 'ag_session=sess_test';

/** `args` against a fresh charging service that drops the first arrival of each poll. */
async function against(
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ service: ChargingService; result: Awaited<ReturnType<typeof runInProcess>> }> {
  const service = chargingService({ drop: dropFirstPoll, videoDoneAt: 2 });
  const result = await scripted.against(service.handler, args, env);
  return { service, result };
}

describe('a poll made with the key, retried after its first attempt was dropped (charged)', () => {
  it('video get --json: charged 1, unknownCharges 1; the ledger 2 = charged + one poll', async () => {
    const { service, result } = await against(['video', 'get', 'vid_1', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(scripted.server.requests.map((seen) => `${seen.method} ${seen.url}`)).toEqual([
      'GET /api/v1/video/vid_1',
      'GET /api/v1/video/vid_1',
    ]);
    const credits = parseJson(result).credits;
    expect(credits).toEqual({ charged: 1, refunded: 0, balance: 998, unknownCharges: 1 });
    expect(service.spent()).toBe(2);
    expect(service.spent()).toBe(credits.charged + credits.unknownCharges * POLL_PRICE);
  });

  it('video wait --json: the job saved, charged 1, unknownCharges 1; the ledger 2', async () => {
    const { service, result } = await against(['video', 'wait', 'vid_1', '-o', 'out/', '--timeout', '20s', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const document = parseJson(result);
    expect(document.credits).toEqual({ charged: 1, refunded: 0, balance: 998, unknownCharges: 1 });
    expect(fs.readFileSync(path.join(scripted.home.cwd, 'out', 'vid_1.mp4'))).toEqual(MP4);
    expect(service.spent()).toBe(2);
  });

  it('runs get --json: the same', async () => {
    const { service, result } = await against(['runs', 'get', 'run_1', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson(result).credits).toEqual({ charged: 1, refunded: 0, balance: 998, unknownCharges: 1 });
    expect(service.spent()).toBe(2);
  });

  it('for people: "Charged at least 1 credit (an attempt got no answer …); at most 998 remaining."', async () => {
    const { result } = await against(['video', 'get', 'vid_1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Charged at least 1 credit (an attempt got no answer: its charge is not known); at most 998 remaining.',
    );
  });
});

describe('a list made with the key, retried after its first attempt was dropped (charged)', () => {
  it('auth login checks the key with GET /api/v1/workflows: "charged at least 1 credit …", --json unknownCharges 1; the ledger 2', async () => {
    const service = chargingService({ drop: (arrival) => arrival.path === '/api/v1/workflows' && arrival.nth === 1 });
    const server = await startServer(service.handler);
    try {
      const result = await runInProcess(['auth', 'login', '--with-key', '--base-url', server.url, '--json'], {
        env: scripted.home.env,
        cwd: scripted.home.cwd,
        input: KEY,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('The service accepted the API key (GET /api/v1/workflows: 1 workflow).');
      // What the check cost, once, in the command's credits line.
      expect(result.stderr).toContain(
        'Charged at least 1 credit (an attempt got no answer: its charge is not known); at most 998 remaining.',
      );
      expect(parseJson(result).credits).toEqual({ charged: 1, refunded: 0, balance: 998, unknownCharges: 1 });
      expect(service.spent()).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe('calls whose every charge is known stay exact', () => {
  it('video get with a session (alone, or beside the key): the poll goes with it, no unknownCharges, the ledger 0', async () => {
    for (const env of [{ ASSETGEN_SESSION: SESSION }, { ASSETGEN_API_KEY: KEY, ASSETGEN_SESSION: SESSION }]) {
      const { service, result } = await against(['video', 'get', 'vid_1', '--json'], env);
      expect(result.code, result.stderr).toBe(0);
      expect(scripted.server.requests).toHaveLength(2);
      expect(parseJson(result).credits).toEqual({ charged: 0, refunded: 0, balance: 1000 });
      expect(service.spent()).toBe(0);
      await scripted.server.close();
    }
  });

  it('video create --no-wait (a keyed POST) whose first attempt was dropped: the replay is its own 180, no unknownCharges', async () => {
    const service = chargingService({ drop: (arrival) => arrival.method === 'POST' && arrival.nth === 1 });
    const result = await scripted.against(service.handler, ['video', 'create', 'a torch', '--yes', '--no-wait', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(scripted.server.requests).toHaveLength(2);
    expect(parseJson(result).credits).toEqual({ charged: VIDEO_PRICE, refunded: 0, balance: 820 });
    expect(service.spent()).toBe(VIDEO_PRICE);
  });
});

describe('a poll that fails after its attempts were dropped (each charged)', () => {
  it('video get --json: the error says unknownCharges 3 (the attempt and two retries), the ledger 3', async () => {
    const service = chargingService({ drop: (arrival) => arrival.method === 'GET' });
    const result = await scripted.against(service.handler, ['video', 'get', 'vid_1', '--json']);
    expect(result.code).not.toBe(0);
    expect(scripted.server.requests).toHaveLength(3);
    expect(jsonError(result).credits).toEqual({ charged: 0, refunded: 0, balance: null, unknownCharges: 3 });
    expect(service.spent()).toBe(3);
  });
});

describe('a list that fails after its attempts were dropped (each charged)', () => {
  it('workflows list: --json error unknownCharges 3 and the ledger 3; for people, the note beside the error', async () => {
    const service = chargingService({ drop: (arrival) => arrival.path === '/api/v1/workflows' });
    const result = await scripted.against(service.handler, ['workflows', 'list', '--json']);
    expect(result.code).not.toBe(0);
    expect(jsonError(result).credits).toEqual({ charged: 0, refunded: 0, balance: null, unknownCharges: 3 });
    expect(jsonError(result).hint).toContain('3 attempts got no answer: the service may still charge them');
    expect(service.spent()).toBe(3);
    await scripted.server.close();
    const people = await scripted.against(chargingService({ drop: (arrival) => arrival.path === '/api/v1/workflows' }).handler, [
      'workflows',
      'list',
    ]);
    expect(people.code).not.toBe(0);
    expect(people.stderr).toContain('3 attempts got no answer: the service may still charge them (not counted in the credits reported).');
  });
});
