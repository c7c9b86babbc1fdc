// A paid POST whose attempt's headers said what it charged (not a replay), its answer then lost:
// that charge is the call's own for certain, whatever the key's history. Asked again with the same
// key, the service replays (charged 0, and here without restating the original charge in a body):
// the call's credits are the lost attempt's charge, not 0. Stopped (Ctrl-C, --timeout) after such
// headers, the call ends with the stop, and the charge is still reported. Against a service with
// its own ledger: every figure is held to it.
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type AssetgenClient, type Credits } from '../../src/index.js';
import { AbortedError, UnexpectedResponseError } from '../../src/client/errors.js';
import { jsonError, runInProcess } from '../support/cli.js';
import { FAST, json, KEY, startServer, useScriptedService, type Seen, type TestServer } from '../support/http.js';

const PRICE = 10;
const IMAGE = { id: 'gen_1', status: 'succeeded', output: { url: '/files/gen_1.png', contentType: 'image/png' } };

/** A service charging each new key once, crediting only in headers; `firstAttempt` decides how a key's first answer goes. */
function service(firstAttempt: 'cut' | 'held') {
  const ledger: number[] = [];
  const seenKeys = new Set<string>();
  let headersSent: () => void = () => {};
  const headersOut = new Promise<void>((resolve) => (headersSent = resolve));
  const handler = (_req: http.IncomingMessage, res: http.ServerResponse, seen: Seen): unknown => {
    if (seen.method !== 'POST') return json(res, 404, { error: { code: 'not_found', message: 'No such file.' } });
    const key = String(seen.headers['idempotency-key']);
    const remaining = String(1000 - ledger.reduce((sum, amount) => sum + amount, 0));
    if (seenKeys.has(key)) {
      return json(res, 200, IMAGE, { 'idempotent-replayed': 'true', 'x-credits-charged': '0', 'x-credits-remaining': remaining });
    }
    seenKeys.add(key);
    ledger.push(PRICE);
    const text = JSON.stringify(IMAGE);
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'x-credits-charged': String(PRICE),
      'x-credits-remaining': String(1000 - PRICE),
    });
    res.write(text.slice(0, 5));
    headersSent();
    if (firstAttempt === 'cut') setImmediate(() => res.socket?.destroy());
    // 'held': the rest never comes; the client stops.
  };
  return { handler, ledger, headersOut, spent: () => ledger.reduce((sum, amount) => sum + amount, 0) };
}

let server: TestServer | undefined;
let client: AssetgenClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

describe('the SDK', () => {
  it('a key the caller gave (maybe used before): the cut attempt said it charged 10, the replay 0 → charged 10, as the ledger', async () => {
    const paying = service('cut');
    server = await startServer(paying.handler);
    const reports: Credits[] = [];
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST, onCredits: (credits) => reports.push(credits) });
    const image = await client.generate({ agentId: 'sprite-artist', prompt: 'a sword' }, { idempotencyKey: 'my-own-key' });
    expect(server.requests).toHaveLength(2);
    expect(image.credits.charged).toBe(PRICE);
    expect(reports.reduce((sum, credits) => sum + (credits.charged ?? 0), 0)).toBe(paying.spent());
    expect(paying.spent()).toBe(PRICE);
  });

  it('stopped after the headers said it charged: the stop is the error, and the charge reaches onCredits', async () => {
    const paying = service('held');
    server = await startServer(paying.handler);
    const reports: Credits[] = [];
    client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST, onCredits: (credits) => reports.push(credits) });
    const controller = new AbortController();
    const calling = client.generate({ agentId: 'sprite-artist', prompt: 'a sword' }, { signal: controller.signal }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    await paying.headersOut;
    // The headers are on the wire; give the client a moment to read them (bounded: it only waits for the body).
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await calling).toBeInstanceOf(AbortedError);
    expect(reports).toEqual([{ charged: PRICE, remaining: 1000 - PRICE }]);
    expect(paying.spent()).toBe(PRICE);
  });
});

describe('an answer refused, its headers saying what the call was charged', () => {
  it('an HTML page (201) and an absurd balance: the refusal carries the charge, onCredits has it once; a replay (0) none', async () => {
    for (const [headers, body, expected] of [
      [{ 'content-type': 'text/html', 'x-credits-charged': '10' }, '<html>busy</html>', 10],
      [{ 'content-type': 'application/json', 'x-credits-charged': '10', 'x-credits-remaining': '-20' }, JSON.stringify(IMAGE), 10],
      [{ 'content-type': 'text/html', 'x-credits-charged': '0', 'idempotent-replayed': 'true' }, '<html>busy</html>', undefined],
    ] as const) {
      server = await startServer((_req, res) => {
        res.writeHead(201, { ...headers, 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
      const reports: Credits[] = [];
      client = createClient({ baseUrl: server.url, apiKey: KEY, ...FAST, onCredits: (credits) => reports.push(credits) });
      const error = await client.generate({ agentId: 'sprite-artist', prompt: 'a sword' }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect((error as UnexpectedResponseError).charged).toBe(expected);
      expect(reports).toEqual(expected === undefined ? [] : [{ charged: expected }]);
      await client.close();
      await server.close();
      server = client = undefined;
    }
  });
});

describe('a stream (session generate) that broke off before its first event, after its headers said it charged', () => {
  it('the retry (a replay, charged 0) opens: the call is charged 10, the ledger; failing for good, it still reports 10', async () => {
    for (const ending of ['replayed', 'every attempt cut'] as const) {
      const ledger: number[] = [];
      const keys = new Set<string>();
      server = await startServer((_req, res, seen) => {
        const key = String(seen.headers['idempotency-key']);
        const replay = keys.has(key);
        if (!replay) ledger.push(PRICE);
        keys.add(key);
        const headers = replay ? { 'idempotent-replayed': 'true', 'x-credits-charged': '0' } : { 'x-credits-charged': String(PRICE) };
        res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
        if (replay && ending === 'replayed') {
          res.write(`event: result\ndata: ${JSON.stringify({ ...IMAGE, credits: { remaining: 990 } })}\n\n`);
          return res.end();
        }
        // Cut before any event.
        res.flushHeaders();
        setImmediate(() => res.socket?.destroy());
      });
      const reports: Credits[] = [];
      client = createClient({ baseUrl: server.url, sessionCookie: 'ag_session=s', ...FAST, onCredits: (credits) => reports.push(credits) });
      const events: unknown[] = [];
      const failure = await (async () => {
        for await (const event of client!.stream({ agentId: 'sprite-artist', prompt: 'a sword' })) events.push(event);
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure === undefined, String(failure)).toBe(ending === 'replayed');
      expect(reports.reduce((sum, credits) => sum + (credits.charged ?? 0), 0)).toBe(ledger.reduce((sum, amount) => sum + amount, 0));
      expect(ledger).toEqual([PRICE]);
      await client.close();
      await server.close();
      server = client = undefined;
    }
  });
});

describe('a stream that broke off before its first event, against a service crediting in bodies only', () => {
  it('the replay restates 10: the client’s own key → charged 10 (the ledger); a key maybe used before → one charge not known', async () => {
    for (const key of [undefined, 'maybe-used-before'] as const) {
      const ledger: number[] = [];
      const keys = new Set<string>();
      server = await startServer((_req, res, seen) => {
        const sent = String(seen.headers['idempotency-key']);
        const replay = keys.has(sent);
        if (!replay) ledger.push(PRICE);
        keys.add(sent);
        res.writeHead(200, { 'content-type': 'text/event-stream', ...(replay ? { 'idempotent-replayed': 'true' } : {}) });
        if (!replay) {
          res.flushHeaders();
          return setImmediate(() => res.socket?.destroy());
        }
        res.write(`event: result\ndata: ${JSON.stringify({ ...IMAGE, credits: { charged: PRICE, remaining: 990 } })}\n\n`);
        return res.end();
      });
      const reports: Credits[] = [];
      client = createClient({ baseUrl: server.url, sessionCookie: 'ag_session=s', ...FAST, onCredits: (credits) => reports.push(credits) });
      for await (const _event of client.stream({ agentId: 'sprite-artist', prompt: 'a sword' }, key ? { idempotencyKey: key } : {}));
      const charged = reports.reduce((sum, credits) => sum + (credits.charged ?? 0), 0);
      const unknown = reports.reduce((sum, credits) => sum + (credits.unknownCharges ?? 0), 0);
      expect(ledger).toEqual([PRICE]);
      expect([charged, unknown]).toEqual(key ? [0, 1] : [PRICE, 0]);
      await client.close();
      await server.close();
      server = client = undefined;
    }
  });
});

describe('the command line', () => {
  const scripted = useScriptedService(runInProcess);

  it('generate --timeout after the headers said it charged: exit 7, --json credits charged 10 (the ledger), the key to ask again', async () => {
    const paying = service('held');
    const result = await scripted.against(paying.handler, ['generate', 'a sword', '--agent', 'sprite-artist', '--timeout', '1s', '--json']);
    expect(result.code, result.stderr).toBe(7);
    const error = jsonError(result);
    expect(error.credits).toMatchObject({ charged: PRICE });
    expect(error.credits.charged).toBe(paying.spent());
    expect(error.idempotencyKey).toEqual(expect.any(String));
  });

  it('generate --idempotency-key, its first answer cut after the headers: --json credits charged 10 (the ledger), not 0', async () => {
    const paying = service('cut');
    const result = await scripted.against(paying.handler, [
      'generate',
      'a sword',
      '--agent',
      'sprite-artist',
      '--idempotency-key',
      'my-fresh-key-1',
      '--json',
      '-o',
      'out/',
    ]);
    // The image's download is not served here (404): the command fails after paying, and says what it paid.
    expect(result.code).not.toBe(0);
    expect(jsonError(result).credits.charged).toBe(paying.spent());
    expect(paying.spent()).toBe(PRICE);
  });
});
