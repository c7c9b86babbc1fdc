// A poll (a GET without an Idempotency-Key) made with an API key is charged on every attempt that
// reaches the service. When an attempt's connection drops before any answer, the client asks again
// — a new call, charged again — and reports the retry's charge: the lost attempt may have been
// charged too (this service always charges it, as one that did the work before the socket went
// would). So the answer's credits say so (`unknownCharges`: the attempts whose charge is not
// known), and the ledger is at most `charged` + a poll's price per unknown charge, never more.
// Session calls (not charged) and keyed calls (their retries are replays, charged 0) stay exact.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type AssetgenClient, type Credits } from '../../src/index.js';
import { AbortedError, AssetgenError, ConnectionError } from '../../src/client/errors.js';
import { chargingService, POLL_PRICE, VIDEO_PRICE, type Arrival } from '../support/charging-service.js';
import { FAST, KEY, startServer, type TestServer } from '../support/http.js';

const SESSION = 'ag_session=sess_test';

let server: TestServer | undefined;
let client: AssetgenClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

/** The first `count` arrivals of each call are dropped (after being charged, when made with the key). */
const firstDropped =
  (count: number) =>
  (arrival: Arrival): boolean =>
    arrival.nth <= count;

/** A client on a fresh charging service that drops the first `drops` attempts; every credits report it gets kept. */
async function on(drops: number, credentials: { apiKey?: string; sessionCookie?: string }) {
  const service = chargingService({ drop: firstDropped(drops), videoDoneAt: 99 });
  server = await startServer(service.handler);
  const reports: Credits[] = [];
  client = createClient({ baseUrl: server.url, ...credentials, ...FAST, onCredits: (credits) => reports.push(credits) });
  return { service, reports, client, server };
}

describe('an unkeyed call made with the API key, whose earlier attempt got no answer', () => {
  it('getVideo: the retry charged 1, the lost attempt is a charge not known; the ledger is charged + 1 poll', async () => {
    const { service, reports, client, server } = await on(1, { apiKey: KEY });
    const job = await client.getVideo('vid_1');
    expect(server.requests).toHaveLength(2);
    expect(job.credits).toEqual({ charged: 1, remaining: 998, unknownCharges: 1 });
    expect(reports).toEqual([{ charged: 1, remaining: 998, unknownCharges: 1 }]);
    // The ledger: both attempts charged. Never more than charged + a poll's price per unknown charge.
    expect(service.spent()).toBe(2);
    expect(service.spent()).toBe(job.credits.charged! + job.credits.unknownCharges! * POLL_PRICE);
  });

  it('getRun: the same', async () => {
    const { service, reports, client } = await on(1, { apiKey: KEY });
    const run = await client.getRun('run_1');
    expect(run.credits).toEqual({ charged: 1, remaining: 998, unknownCharges: 1 });
    expect(reports).toEqual([run.credits]);
    expect(service.spent()).toBe(2);
  });

  it('two attempts lost before the answer: two charges not known (the ledger 3)', async () => {
    const { service, client, server } = await on(2, { apiKey: KEY });
    const job = await client.getVideo('vid_1');
    expect(server.requests).toHaveLength(3);
    expect(job.credits).toEqual({ charged: 1, remaining: 997, unknownCharges: 2 });
    expect(service.spent()).toBe(job.credits.charged! + job.credits.unknownCharges! * POLL_PRICE);
  });

  it('a list made with the key (GET /api/v1/workflows, charged too) reports it the same way', async () => {
    const { service, reports, client } = await on(1, { apiKey: KEY });
    await client.listWorkflows();
    expect(reports).toEqual([{ charged: 1, remaining: 998, unknownCharges: 1 }]);
    expect(service.spent()).toBe(2);
  });
});

describe('calls whose every charge is known stay exact', () => {
  it('a poll answered at once: no mark', async () => {
    const { service, reports, client } = await on(0, { apiKey: KEY });
    const job = await client.getVideo('vid_1');
    expect(job.credits).toEqual({ charged: 1, remaining: 999 });
    expect(reports).toEqual([job.credits]);
    expect(service.spent()).toBe(1);
  });

  it('a poll made with the session (not charged): retried after a dropped connection, no mark, the ledger 0', async () => {
    for (const credentials of [{ sessionCookie: SESSION }, { apiKey: KEY, sessionCookie: SESSION }]) {
      const { service, reports, client, server } = await on(1, credentials);
      const job = await client.getVideo('vid_1');
      expect(server.requests).toHaveLength(2);
      // With both, the poll goes with the session.
      expect(server.requests.every((seen) => seen.headers.authorization === undefined)).toBe(true);
      expect(job.credits).toEqual({ charged: 0, remaining: 1_000 });
      expect(reports).toEqual([job.credits]);
      expect(service.spent()).toBe(0);
      await client.close();
      await server.close();
    }
  });

  it('a keyed POST (createVideo) retried after a dropped connection: the replay is its own charge, 180, no mark', async () => {
    const { service, reports, client, server } = await on(1, { apiKey: KEY });
    const job = await client.createVideo({ prompt: 'a torch' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.headers['idempotency-key']).toBe(server.requests[1]!.headers['idempotency-key']);
    expect(job.credits).toEqual({ charged: VIDEO_PRICE, remaining: 820 });
    expect(reports).toEqual([job.credits]);
    expect(service.spent()).toBe(VIDEO_PRICE);
  });
});

describe('pollsCharged: whether the client’s polls go with the API key (charged)', () => {
  it('the key alone: charged; a session (alone or beside the key): not; the ledger agrees', async () => {
    const made = (credentials: { apiKey?: string; sessionCookie?: string }) =>
      createClient({ baseUrl: 'http://127.0.0.1:9/', ...credentials }).pollsCharged;
    expect(made({ apiKey: KEY })).toBe(true);
    expect(made({ sessionCookie: SESSION })).toBe(false);
    expect(made({ apiKey: KEY, sessionCookie: SESSION })).toBe(false);
    expect(made({})).toBe(false);
    for (const credentials of [{ apiKey: KEY }, { apiKey: KEY, sessionCookie: SESSION }]) {
      const { service, client: polling } = await on(0, credentials);
      await polling.getVideo('vid_1');
      expect(service.spent()).toBe(polling.pollsCharged ? POLL_PRICE : 0);
      await polling.close();
      await server!.close();
    }
  });
});

describe('a poll that fails after attempts with no answer: each is a charge not known, on the error', () => {
  it('every attempt dropped (charged): a ConnectionError, the call told 3 attempts unanswered: the ledger', async () => {
    const { service, reports, client, server } = await on(99, { apiKey: KEY });
    const told: number[] = [];
    const error = await client.getVideo('vid_1', { onUnanswered: (attempts) => told.push(attempts) }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(3); // the attempt and two retries (maxRetries 2)
    expect(told).toEqual([3]);
    // Reported where every charge is, so a command's tally needs no rule of its own.
    expect(reports).toEqual([{ unknownCharges: 3 }]);
    expect(service.spent()).toBe(3);
  });

  it('a list (GET /api/v1/workflows) whose every attempt was dropped: the same, 3 reported; with a session beside the key, none (not charged)', async () => {
    const { service, reports, client: keyed } = await on(99, { apiKey: KEY });
    await expect(keyed.listWorkflows()).rejects.toBeInstanceOf(ConnectionError);
    expect(reports).toEqual([{ unknownCharges: 3 }]);
    expect(service.spent()).toBe(3);
    await keyed.close();
    await server!.close();
    const withSession = await on(99, { apiKey: KEY, sessionCookie: SESSION });
    const told: number[] = [];
    await expect(withSession.client.listWorkflows({ onUnanswered: (attempts) => told.push(attempts) })).rejects.toBeInstanceOf(
      ConnectionError,
    );
    expect(told).toEqual([3]);
    expect(withSession.reports).toEqual([]);
    expect(withSession.service.spent()).toBe(0);
  });

  it('stopped while its first attempt is out: one charge not known', async () => {
    let arrived = 0;
    server = await startServer(() => {
      arrived += 1; // never answered: the attempt stays out until the caller stops it
    });
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    const controller = new AbortController();
    const told: number[] = [];
    const polling = client.getVideo('vid_1', { signal: controller.signal, onUnanswered: (attempts) => told.push(attempts) }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    for (let i = 0; i < 200 && arrived === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(arrived).toBe(1);
    controller.abort();
    const error = await polling;
    expect(error).toBeInstanceOf(AbortedError);
    expect(told).toEqual([1]);
    // Nothing written on the error: an abort's error is the signal's reason, shared by every call.
    expect(Object.keys(error as object)).not.toContain('unansweredAttempts');
  });

  it('refused before anything was sent (an id that is not one): nothing not known', async () => {
    server = await startServer(() => {});
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST });
    const told: number[] = [];
    const error = await client.getVideo('../etc', { onUnanswered: (attempts) => told.push(attempts) }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(AssetgenError);
    expect(told).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
